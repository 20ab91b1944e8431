#!/usr/bin/env bash
# Where the server's time goes: `perf record -g` on remvvm-server during (1) the dispatch load of
# scenario 1a (wrk, 64 sessions), (2) a long-poll fan-out of BENCH_FANOUT_N on one session and (3) one
# long-poll on each of BENCH_FANOUT_N sessions, each changed by a dispatch of its own (scenario 2's second
# case), cut to the window from the first dispatch to the last answer: the CPU per change of ours, the C
# floor, the floor set up as ours and nginx+nchan (when installed), each split by library, and ours split by
# stage per change.
# Reports (perf report --no-children, by thread, library and symbol) go to bench/bin/profile-*.txt.
source "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || apt_install linux-perf || die "perf is required (apt-get install linux-perf)"
need_tools
build_c
build_server
D=${BENCH_DURATION}
wait_for_idle_machine

# The server's threads are named remvvm-http-N (the transport's workers) and com.apple.root.* (Swift's pool), never
# remvvm-server, so `--comm remvvm-server` would match nothing: the recording is limited to the server's pid.
report() {
    {
        echo "## CPU by thread"
        perf report -i "$1" --no-children --stdio --sort comm -g none 2>/dev/null | grep -v '^#' | sed '/^$/d'
        echo "## CPU by library"
        perf report -i "$1" --no-children --stdio --sort dso -g none --percent-limit 1 2>/dev/null \
            | grep -v '^#' | sed '/^$/d'
        echo "## self time by symbol (--no-children)"
        perf report -i "$1" --no-children --stdio --sort dso,symbol -g none --percent-limit 0.5 2>/dev/null \
            | grep -v '^#' | sed '/^$/d' | sed 's/ *$//' | cut -c1-180
        echo "## inclusive time by symbol (--children)"
        perf report -i "$1" --children --stdio --sort symbol -g none --percent-limit 3 2>/dev/null \
            | grep -v '^#' | sed '/^$/d' | sed 's/ *$//' | cut -c1-220
    } >"$2"
    say "   $2; CPU by thread and library:"
    sed -n '/^## CPU by thread/,/^## self/p' "$2" | grep -v '^## self' | head -20 | sed 's/^/     /'
}

say "== profile 1: dispatch, wrk -t2 -c64 -d${D}s, 64 sessions"
start_server
server=$PID
"$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/sessions-64.txt" >/dev/null
wrk -t2 -c64 -d"${D}s" -s "$BENCH_DIR/wrk/dispatch.lua" "http://127.0.0.1:$SERVER_PORT" -- \
    "$BIN/sessions-64.txt" 2 >"$LOGS/wrk-profile.log" 2>&1 &
wrk_pid=$!
STARTED+=("$wrk_pid")
sleep 1
ticks0=$(cpu_ticks "$server")
perf record -q -g -p "$server" -o "$BIN/perf-dispatch.data" -- sleep $((D > 3 ? D - 2 : 1)) >/dev/null 2>&1
ticks1=$(cpu_ticks "$server")
wait "$wrk_pid" || true
forget "$wrk_pid"
grep '^RESULT' "$LOGS/wrk-profile.log" | sed 's/^/   /'
stop "$server"
report "$BIN/perf-dispatch.data" "$BIN/profile-dispatch.txt"
# Server CPU per request while perf recorded (perf's own overhead included), split by stage.
rps=$(field rps "$(grep '^RESULT' "$LOGS/wrk-profile.log")")
per_request=$(awk -v t="$((ticks1 - ticks0))" -v hz="$(getconf CLK_TCK)" -v r="$rps" -v s="$((D > 3 ? D - 2 : 1))" \
    'BEGIN { printf "%.1f", (r > 0 ? t / hz * 1e6 / (r * s) : 0) }')
"$BENCH_DIR/breakdown.py" "$BIN/perf-dispatch.data" "$per_request" >"$BIN/profile-dispatch-stages.txt"
say "   server CPU ${per_request} µs per request, by stage ($BIN/profile-dispatch-stages.txt):"
head -16 "$BIN/profile-dispatch-stages.txt" | sed 's/^/     /'

say "== profile 2: long-poll fan-out, $BENCH_FANOUT_N polls on one session"
start_server
server=$PID
"$BIN/mksessions" "$SERVER_PORT" 1 1 "$BIN/fanout-sessions.txt" >/dev/null
perf record -q -g -p "$server" -o "$BIN/perf-fanout.data" >/dev/null 2>&1 &
perf_pid=$!
STARTED+=("$perf_pid")
"$BIN/fanout" poll "$SERVER_PORT" "$BIN/fanout-sessions.txt" "$BENCH_FANOUT_N" one --pids "$server" \
    --ready /metrics remvvm_parked_polls | grep -E '^fanout|^server' | sed 's/^/   /' || true
kill -INT "$perf_pid"
wait "$perf_pid" 2>/dev/null || true
forget "$perf_pid"
stop "$server"
report "$BIN/perf-fanout.data" "$BIN/profile-fanout.txt"

say "== profile 3: long-poll fan-out, one poll on each of $BENCH_FANOUT_N sessions, a dispatch each"
# The same fan-out against the C floor, the floor set up as ours and nginx+nchan too, for their CPU per
# change and its split by library (kernel, libc, libmicrohttpd, the server's own code); ours is also split by
# stage. A sample per 100 µs of CPU (task-clock), on the monotonic clock the client's window line uses.
targets="floor floor-tuned ours"
have_nchan && targets="floor floor-tuned ours nchan"
for target in $targets; do
    recorded_fanout "$target" "$BIN/fanout-sessions.txt" "$LOGS/fanout-profile.log" \
        -g -k mono -e task-clock -c 100000 -o "$BIN/perf-fanout-many-$target.data"
    window=$(awk '/^window:/ { print $3 "," $4 }' "$LOGS/fanout-profile.log")
    [ -n "$window" ] || die "the fan-out client printed no window against $target: $(tail -3 "$LOGS/fanout-profile.log")"
    samples=$(perf script -i "$BIN/perf-fanout-many-$target.data" --time "$window" -F time 2>/dev/null | wc -l)
    say "   $target: $(grep -o 'last=[0-9.]* ms' "$LOGS/fanout-profile.log"), $(awk -v s="$samples" -v n="$BENCH_FANOUT_N" \
        'BEGIN { printf "%.1f", s * 100 / n }') µs of CPU per change (perf task-clock, $samples samples in the window)"
    # By library (a share of the samples, each 100 µs of CPU); rows under 1% left out.
    perf report -i "$BIN/perf-fanout-many-$target.data" --time "$window" --no-children --stdio --sort dso -g none \
        --percent-limit 1 2>/dev/null | awk -v s="$samples" -v n="$BENCH_FANOUT_N" \
        '/^ +[0-9.]+%/ { p = $1; sub("%", "", p); printf "     %-28s %5.1f µs per change\n", $2, p * s / n }'
    [ "$target" = ours ] || continue
    "$BENCH_DIR/breakdown.py" --stages fanout --time "$window" --sample-us 100 --count "$BENCH_FANOUT_N" \
        "$BIN/perf-fanout-many-ours.data" >"$BIN/profile-fanout-many-stages.txt"
    say "   ours from the first dispatch to the last answer, by stage ($BIN/profile-fanout-many-stages.txt):"
    head -20 "$BIN/profile-fanout-many-stages.txt" | sed 's/^/     /'
done
