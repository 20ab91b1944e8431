#!/usr/bin/env bash
# Scenario 4 - memory per idle session: the server's RSS growth over BENCH_SESSIONS_N example-app sessions
# created with POST /v1/sessions (bench/clients/mksessions.c, 32 keep-alive connections), divided by
# their number. There is no floor: the target is absolute.
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
N=$BENCH_SESSIONS_N
say "== 4. memory per idle session: $N sessions"
wait_for_idle_machine

rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

start_server
server=$PID
# one request through every path first, so the growth measured is sessions, not first-use allocations
"$BIN/mksessions" "$SERVER_PORT" 64 8 - >/dev/null
sleep 1
before=$(rss "$server")
made=$("$BIN/mksessions" "$SERVER_PORT" "$N" 32 -) || die "creating $N sessions failed: $made"
note "$made"
sleep 2
after=$(rss "$server")
live=$(curl -sf "http://127.0.0.1:$SERVER_PORT/healthz" | sed -n 's/.*"sessions":\([0-9]*\).*/\1/p')
stop "$server"
per=$(awk -v a="$after" -v b="$before" -v n="$N" 'BEGIN { printf "%.2f", (a - b) / n }')
note "server RSS: ${before} KiB before, ${after} KiB with $live live sessions"
record "4 sessions" "idle session: RSS KiB per session" "$per" "" "" "<=4 KiB" "$(verdict "$per <= 4")"
