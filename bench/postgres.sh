#!/usr/bin/env bash
# Scenario 7 - PostgreSQL storage: the durable dispatch load of scenario 6 (wrk, 64 connections over 64
# sessions) against a server keeping its sessions in PostgreSQL (--database-url), beside pgbench on the same
# PostgreSQL doing one single-row INSERT per transaction with the same 64 clients (what PostgreSQL commits
# per second when every commit waits for its own WAL flush), and the SQLite path (--data-dir) in the same
# run. The server batches many dispatches into one transaction, so it should reach at least pgbench's rate.
# PostgreSQL is a throwaway one (scripts/lib/postgres.sh): fsync and synchronous_commit on.
source "$(dirname "$0")/lib.sh"
# shellcheck source=../scripts/lib/common.sh
source "$REPO_DIR/scripts/lib/common.sh"
# shellcheck source=../scripts/lib/postgres.sh
source "$REPO_DIR/scripts/lib/postgres.sh"

need_tools
build_c
build_server
say "== 7. PostgreSQL storage: durable dispatch with --database-url against pgbench (1 INSERT per transaction)"
if ! server_has --database-url; then
    say "   not available: remvvm-server --help has no --database-url"
    record "7 postgres" "PostgreSQL storage" "not available" "" "" "" "skip"
    exit 0
fi
start_postgres
trap 'stop_postgres; cleanup' EXIT
PSQL=(env PGOPTIONS="-c client_min_messages=warning" "$POSTGRES_BIN/psql" -q -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres)
URL_BASE="postgresql://postgres@127.0.0.1:$POSTGRES_PORT"
printf 'INSERT INTO bench_insert (v) VALUES (1);\n' >"$BIN/pgbench-insert.sql"

# fresh_database NAME: an empty database (the server creates its schema itself).
fresh_database() {
    "${PSQL[@]}" -d postgres -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
}

declare -A rps p99
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    fresh_database pgbench
    "${PSQL[@]}" -d pgbench -c "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, v integer NOT NULL)"
    "$POSTGRES_BIN/pgbench" -n -c 64 -j 2 -T "$BENCH_DURATION" -f "$BIN/pgbench-insert.sql" \
        -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres pgbench >"$LOGS/pgbench.log" 2>&1 \
        || { cat "$LOGS/pgbench.log" >&2; die "pgbench failed"; }
    tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$LOGS/pgbench.log" | head -1)
    note "run $rep pgbench 64 clients, 1 INSERT per transaction: $tps tps"
    rps[pgbench]+=" $tps"

    for mode in postgres sqlite; do
        if [ "$mode" = postgres ]; then
            fresh_database remvvm_bench
            start_server --durability full --database-url "$URL_BASE/remvvm_bench" --node-name bench
        else
            start_server --durability full
        fi
        server=$PID
        "$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/sessions-64.txt" >/dev/null
        line=$(run_wrk "$SERVER_PORT" "$BIN/sessions-64.txt" "$server")
        note "run $rep $mode: $line"
        rps[$mode]+=" $(field rps "$line")"
        p99[$mode]+=" $(field p99_us "$line")"
        stop "$server"
    done
    transactions=$("${PSQL[@]}" -d remvvm_bench -At -c "SELECT xact_commit FROM pg_stat_database WHERE datname = 'remvvm_bench'")
    note "run $rep: the server's database committed $transactions transactions (pg_stat_database.xact_commit)"
    # The pairs of one run shared the machine's state: their ratio is steadier than a ratio of medians.
    note "run $rep: PostgreSQL storage / pgbench = $(ratio "${rps[postgres]##* }" "$tps"), / SQLite = $(ratio "${rps[postgres]##* }" "${rps[sqlite]##* }")"
done

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
# shellcheck disable=SC2086
{
    pg=$(median ${rps[postgres]})
    bench=$(median ${rps[pgbench]})
    lite=$(median ${rps[sqlite]})
    pgp=$(median ${p99[postgres]})
    litep=$(median ${p99[sqlite]})
}
record "7 postgres" "dispatch, 64 sessions, PostgreSQL: req/s (vs pgbench tps)" "$pg" "$bench" "$(ratio "$pg" "$bench")" \
    ">= 1" "$(verdict "$pg >= $bench")"
record "7 postgres" "dispatch, 64 sessions, PostgreSQL: req/s (vs SQLite)" "$pg" "$lite" "$(ratio "$pg" "$lite")" "" ""
record "7 postgres" "dispatch, 64 sessions, PostgreSQL: p99 ms (vs SQLite)" "$(ms "$pgp")" "$(ms "$litep")" \
    "$(ratio "$pgp" "$litep")" "" ""
