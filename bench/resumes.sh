#!/usr/bin/env bash
# How well resumes share libmicrohttpd's walk of its suspended connections: one long-poll on each of
# BENCH_FANOUT_N sessions, each changed by a dispatch of its own (scenario 2's second case), BENCH_REPEAT
# times, with `perf record -e syscalls:sys_enter_read` on the server cut to the fan-out client's window.
# A worker (remvvm-http-N) reads its wake-up eventfd once per pass that resumes queued by another thread
# woke, and walks its whole suspended list once in that pass, however many resumes it takes. Prints that count
# with the last answer and the server's CPU in the window.
# usage: bench/resumes.sh [SERVER_BINARY]   (perf's syscall tracepoints need root, as the scripts run here)
source "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || apt_install linux-perf || die "perf is required (apt-get install linux-perf)"
need_tools
build_c
use_server "$@"

say "== resume batches and worker wake-ups, one long-poll on each of $BENCH_FANOUT_N sessions ($SERVER_BIN)"
for round in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    recorded_fanout ours "$BIN/resumes-sessions.txt" "$LOGS/resumes-fanout.log" \
        -k mono -e syscalls:sys_enter_read -o "$BIN/perf-resumes.data"
    window=$(awk '/^window:/ { print $3 "," $4 }' "$LOGS/resumes-fanout.log")
    [ -n "$window" ] || die "the fan-out client printed no window: $(tail -3 "$LOGS/resumes-fanout.log")"
    line=$(grep '^RESULT' "$LOGS/resumes-fanout.log")
    counts=$(perf script -i "$BIN/perf-resumes.data" --time "$window" -F comm 2>/dev/null | sort | uniq -c)
    wakeups=$(awk '$2 ~ /^remvvm-http-/ { s += $1 } END { print s + 0 }' <<<"$counts")
    say "   round $round: last answer $(field last_ms "$line") ms, server CPU $(field server_cpu_ms "$line") ms," \
        "worker wake-ups $wakeups"
done
