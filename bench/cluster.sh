#!/usr/bin/env bash
# Scenario 8 - several nodes (scripts/cluster: PostgreSQL, three nodes, nginx, all on 127.0.0.1):
#  a. the durable dispatch load of scenario 7 (wrk, 64 connections over 64 sessions) through nginx, against
#     three nodes, then against one node behind the same nginx (the other two stopped, so nginx sends
#     everything to the one left). On one machine of 2 cores the three nodes, nginx, PostgreSQL and wrk
#     share the same CPUs: this measures what the extra nodes and the routing cost, not how far they scale.
#  b. the time to take over a session with 1,000 log entries after its snapshot: the session is created and
#     fed 1,000 dispatches on node-1 (--snapshot-every 1000000: no snapshot after the creation's), then
#     node-2 gets its first request, which loads the snapshot, replays the log and moves the fence. The
#     same with an empty log, in the same run, is the fixed part (connection, statements, fence).
# usage: bench/cluster.sh   (BENCH_DURATION, BENCH_REPEAT and REMVVM_SERVER as for the others; port base
# BENCH_PORT+10: nginx, then node-1..3, then PostgreSQL)
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
say "== 8. several nodes: three nodes behind nginx against one, and a takeover of 1,000 log entries"
if ! server_has --node-name; then
    say "   not available: remvvm-server --help has no --node-name"
    record "8 cluster" "several nodes" "not available" "" "" "" "skip"
    exit 0
fi
CLUSTER_BASE=$((BENCH_PORT + 10))
CLUSTER_RUN=$(mktemp -d "${TMPDIR:-/tmp}/remvvm-bench-cluster.XXXXXX")
chmod 755 "$CLUSTER_RUN"
cluster() { REMVVM_SERVER=$SERVER_BIN "$REPO_DIR/scripts/cluster" --dir "$CLUSTER_RUN" --port "$CLUSTER_BASE" "$@"; }
trap 'cluster clean >/dev/null 2>&1 || true; rm -rf "$CLUSTER_RUN"; cleanup' EXIT
node_port() { echo $((CLUSTER_BASE + $1)); }
pg_port() { echo $((CLUSTER_BASE + 4)); }
export CLUSTER_ACCESS_LOG=off
export CLUSTER_NODE_FLAGS="--threads $THREADS --log-level warning --snapshot-every 1000000"

# wrk_through_nginx: the dispatch load through nginx on this run's sessions; prints wrk's RESULT line.
wrk_through_nginx() {
    wrk -t2 -c64 -d"$1s" --timeout 5s -s "$BENCH_DIR/wrk/dispatch.lua" "http://127.0.0.1:$CLUSTER_BASE" \
        -- "$BIN/cluster-sessions.txt" 2 >"$LOGS/wrk-cluster.log" 2>&1 || { cat "$LOGS/wrk-cluster.log" >&2; die "wrk failed"; }
    grep '^RESULT' "$LOGS/wrk-cluster.log"
}

declare -A rps p99
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    cluster start >"$LOGS/cluster-start.log" 2>&1 || { cat "$LOGS/cluster-start.log" >&2; die "scripts/cluster start failed"; }
    "$BIN/mksessions" "$CLUSTER_BASE" 64 8 "$BIN/cluster-sessions.txt" >/dev/null
    for mode in three one; do
        if [ "$mode" = one ]; then
            cluster stop node-2 >/dev/null
            cluster stop node-3 >/dev/null
        fi
        # Warm-up: every session moves to the node nginx picks for it (one takeover each), not measured.
        wrk_through_nginx 2 >/dev/null
        line=$(wrk_through_nginx "$BENCH_DURATION")
        note "run $rep $mode node(s) behind nginx: $line"
        rps[$mode]+=" $(field rps "$line")"
        p99[$mode]+=" $(field p99_us "$line")"
    done
    cluster clean >/dev/null
done

# take_over_ms ENTRIES: creates a session on node-1, dispatches ENTRIES actions there, and prints the time in
# ms of node-2's first answer for it (curl's time_total), after checking that it shows every action.
take_over_ms() {
    local entries=$1 session id token config answer
    session=$(curl -sf -X POST "http://127.0.0.1:$(node_port 1)/v1/sessions") || die "no session created"
    id=$(printf '%s' "$session" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
    token=$(printf '%s' "$session" | sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p')
    if [ "$entries" -gt 0 ]; then
        # One curl, one keep-alive connection, ENTRIES dispatches in a row.
        config="$BIN/takeover-curl.cfg"
        : >"$config"
        for _ in $(seq "$entries"); do
            printf 'url = "http://127.0.0.1:%s/v1/sessions/%s/actions"\noutput = "/dev/null"\n' "$(node_port 1)" "$id" \
                >>"$config"
        done
        curl -s -K "$config" -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
            -d '{"type":"counter/increase"}' -w '%{http_code}\n' | sort | uniq -c >"$LOGS/takeover-statuses.log"
        grep -q "^ *$entries 200$" "$LOGS/takeover-statuses.log" \
            || die "the $entries dispatches were not all acknowledged: $(head -c 300 "$LOGS/takeover-statuses.log")"
    fi
    answer=$(curl -s -o "$LOGS/takeover-answer.json" -w '%{http_code} %{time_total}' -H "Authorization: Bearer $token" \
        "http://127.0.0.1:$(node_port 2)/v1/sessions/$id?views=counter")
    [ "${answer%% *}" = 200 ] || die "node-2 answered ${answer%% *}: $(cat "$LOGS/takeover-answer.json")"
    grep -q "\"counter\":\"$entries\"" "$LOGS/takeover-answer.json" \
        || die "node-2 does not show the $entries actions: $(cat "$LOGS/takeover-answer.json")"
    awk -v s="${answer#* }" 'BEGIN { printf "%.2f", s * 1000 }'
}

wait_for_idle_machine
cluster start >"$LOGS/cluster-start.log" 2>&1 || { cat "$LOGS/cluster-start.log" >&2; die "scripts/cluster start failed"; }
declare -A takeover
for rep in $(seq $((BENCH_REPEAT * 3))); do
    for entries in 0 1000; do
        takeover[$entries]+=" $(take_over_ms "$entries")"
    done
    note "run $rep takeover by node-2, ms: empty log ${takeover[0]##* }, 1,000 log entries ${takeover[1000]##* }"
done
cluster clean >/dev/null

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
# shellcheck disable=SC2086
{
    three=$(median ${rps[three]})
    one=$(median ${rps[one]})
    threep=$(median ${p99[three]})
    onep=$(median ${p99[one]})
    full=$(median ${takeover[1000]})
    empty=$(median ${takeover[0]})
}
record "8 cluster" "dispatch through nginx, 3 nodes: req/s (vs 1 node)" "$three" "$one" "$(ratio "$three" "$one")" \
    "2 cores: overhead, not scaling" ""
record "8 cluster" "dispatch through nginx, 3 nodes: p99 ms (vs 1 node)" "$(ms "$threep")" "$(ms "$onep")" \
    "$(ratio "$threep" "$onep")" "" ""
record "8 cluster" "takeover of 1,000 log entries: ms (vs empty log)" "$full" "$empty" "$(ratio "$full" "$empty")" "" ""
