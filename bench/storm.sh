#!/usr/bin/env bash
# Scenario 11 - the reconnect storm (scripts/cluster: PostgreSQL, three nodes, nginx, all on 127.0.0.1):
# STORM_SESSIONS sessions (default 30,000) are created through nginx and each read once, so that each lives on
# the node nginx routes it to (about a third each); every session node-1 holds gets a long-poll parked through
# nginx; node-1 is killed (SIGKILL) and one action is dispatched to each of its sessions through nginx. nginx
# retries each parked poll on the session's next node, which takes the session over and answers the poll once
# the dispatch lands. Reported: the time from the kill until 99% of the polls are answered (goal: 2 s), the
# statuses polls and dispatches saw (only 200, and 503 with Retry-After, are expected), and the storage reads per
# session (the takeovers, from the fences' sum: at most one each).
# usage: bench/storm.sh   (REMVVM_SERVER as for the others; STORM_SESSIONS; STORM_NODE_FLAGS; STORM_LOG_LEVEL for the nodes, default
# warning; port base BENCH_PORT+20; the nodes' and nginx's logs are copied to bench/bin/logs/storm-*)
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
say "== 11. reconnect storm: kill -9 of the node holding the sessions of ${STORM_SESSIONS:-30000} / 3 parked polls"
if ! "$SERVER_BIN" --help 2>&1 | grep -- --max-pending-loads >/dev/null; then
    say "   not available: remvvm-server --help has no --max-pending-loads"
    record "11 storm" "reconnect storm" "not available" "" "" "" "skip"
    exit 0
fi
STORM_SESSIONS=${STORM_SESSIONS:-30000}
CLUSTER_BASE=$((BENCH_PORT + 20))
CLUSTER_RUN=$(mktemp -d "${TMPDIR:-/tmp}/remvvm-bench-storm.XXXXXX")
chmod 755 "$CLUSTER_RUN"
cluster() { REMVVM_SERVER=$SERVER_BIN "$REPO_DIR/scripts/cluster" --dir "$CLUSTER_RUN" --port "$CLUSTER_BASE" "$@"; }
trap 'cluster clean >/dev/null 2>&1 || true; rm -rf "$CLUSTER_RUN"; cleanup' EXIT
export CLUSTER_ACCESS_LOG=off
export CLUSTER_NGINX_CONNECTIONS=$((STORM_SESSIONS + 8192))
export CLUSTER_NODE_FLAGS="--threads $THREADS --log-level ${STORM_LOG_LEVEL:-warning} --connection-limit $((STORM_SESSIONS + 1000))"
# Every session comes through nginx from one address: the per-address budgets would refuse most of them.
if "$SERVER_BIN" --help 2>&1 | grep -- --session-creation-burst >/dev/null; then
    CLUSTER_NODE_FLAGS+=" --session-creation-burst 0 --connections-per-client 0"
fi
CLUSTER_NODE_FLAGS+=" ${STORM_NODE_FLAGS:-}"  # More flags for the nodes, e.g. "--max-pending-loads 2048".
psql_at() {
    "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)/psql" -h 127.0.0.1 -p $((CLUSTER_BASE + 4)) -U postgres \
        -d remvvm -Atq "$@"
}
# The sum of the fences of the sessions in victim.txt (each takeover adds one).
fences() {
    { echo "CREATE TEMP TABLE victim (id text); COPY victim FROM STDIN;"; cut -d' ' -f1 "$CLUSTER_RUN/victim.txt"
      printf '%s\n' '\.' "SELECT sum(fence) FROM sessions JOIN victim USING (id);"; } | psql_at
}

ulimit -n "$(ulimit -Hn)"
cluster start >"$LOGS/storm-start.log" 2>&1 || { cat "$LOGS/storm-start.log" >&2; die "scripts/cluster start failed"; }
"$BIN/mksessions" "$CLUSTER_BASE" "$STORM_SESSIONS" 32 "$CLUSTER_RUN/all.txt" >"$LOGS/storm-mksessions.log" \
    || die "creating sessions failed: $(cat "$LOGS/storm-mksessions.log")"
note "$("$BIN/storm" touch "$CLUSTER_BASE" "$CLUSTER_RUN/all.txt" | grep '^RESULT')"
psql_at -c "SELECT id FROM sessions WHERE owner = 'node-1'" | sort >"$CLUSTER_RUN/victim-ids.txt"
sort -k1,1 "$CLUSTER_RUN/all.txt" | join - "$CLUSTER_RUN/victim-ids.txt" >"$CLUSTER_RUN/victim.txt"
count=$(wc -l <"$CLUSTER_RUN/victim.txt")
before=$(fences)
note "node-1 holds $count sessions; parking a long-poll on each through nginx"
result=$("$BIN/storm" run "$CLUSTER_BASE" "$CLUSTER_RUN/victim.txt" "$(cat "$CLUSTER_RUN/node-1.pid")" 5 | grep '^RESULT')
after=$(fences)
for log in "$CLUSTER_RUN"/node-*.log "$CLUSTER_RUN"/nginx/error.log; do cp "$log" "$LOGS/storm-${log##*/}" || true; done
reads=$(awk -v a="$after" -v b="$before" -v n="$count" 'BEGIN { printf "%.3f", (a - b) / n }')
note "$result"
note "storage reads (takeovers) per session: $reads"
p99=$(field p99_ms "$result")
record "11 storm" "reconnect storm, $count polls: ms to 99% answered (goal 2000)" "$p99" "2000" \
    "$(ratio "$p99" 2000)" "reads/session $reads" "$(verdict "$p99 >= 0 && $p99 <= 2000")"
cluster clean >/dev/null
