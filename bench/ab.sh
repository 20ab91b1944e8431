#!/usr/bin/env bash
# A/B of two server builds: the same scenario on each, alternating, BENCH_REPEAT rounds, medians.
# usage: bench/ab.sh BINARY_A BINARY_B dispatch|dispatch-one|poll-one|poll-many|sse
#   dispatch   scenario 1a (wrk, 64 connections over 64 sessions): req/s and server CPU µs per request
#   dispatch-one  scenario 1b (wrk, 64 connections on one session): the same figures
#   poll-one   scenario 2, 10,000 long-polls on one session: ms until the last answer
#   poll-many  scenario 2, one long-poll on each of 10,000 sessions: ms until the last answer
#   sse        scenario 3, 10,000 event streams on one session: ms until the last event
# The fan-outs also report the server's CPU time from the first dispatch to the last answer (the client's
# window, in 10 ms ticks), which moves less with the host's load than the time until the last answer does.
# Single changes move the figures less than this shared machine's noise does, so a change is judged by
# running both builds in turns (A first in odd rounds, B first in even ones), in one invocation, with a fresh
# server for every measurement. Build a "before" binary first, e.g. `git stash; swift build -c release
# -Xswiftc -cross-module-optimization --static-swift-stdlib --product remvvm-server --scratch-path .build-bench;
# cp .build-bench/release/remvvm-server /tmp/a`.
source "$(dirname "$0")/lib.sh"

[ $# -eq 3 ] || die "usage: bench/ab.sh BINARY_A BINARY_B dispatch|dispatch-one|poll-one|poll-many|sse"
for binary in "$1" "$2"; do [ -x "$binary" ] || die "$binary is not an executable server build"; done
scenario=$3
case $scenario in dispatch | dispatch-one | poll-one | poll-many | sse) ;; *) die "unknown scenario $scenario" ;; esac

need_tools
build_c

# measure BINARY: one figure of the scenario on a fresh server, in VALUE (and CPU for dispatch). Not run in
# a subshell, so the exit trap still sees the server it starts.
measure() {
    SERVER_BIN=$1
    start_server
    local server=$PID line
    case $scenario in
        dispatch | dispatch-one)
            local sessions=64
            [ "$scenario" = dispatch-one ] && sessions=1
            "$BIN/mksessions" "$SERVER_PORT" "$sessions" 8 "$BIN/ab-sessions.txt" >/dev/null
            line=$(run_wrk "$SERVER_PORT" "$BIN/ab-sessions.txt" "$server")
            VALUE=$(field rps "$line")
            CPU=$(field cpu_us "$line")
            ;;
        poll-one | poll-many | sse)
            local count=1 mode=one proto=poll gauge=remvvm_parked_polls
            [ "$scenario" = poll-many ] && count=$BENCH_FANOUT_N mode=many
            [ "$scenario" = sse ] && proto=sse gauge=remvvm_event_streams
            "$BIN/mksessions" "$SERVER_PORT" "$count" 32 "$BIN/ab-sessions.txt" >/dev/null
            "$BIN/fanout" "$proto" "$SERVER_PORT" "$BIN/ab-sessions.txt" "$BENCH_FANOUT_N" "$mode" --pids "$server" \
                --ready /metrics "$gauge" >"$LOGS/ab-fanout.log" 2>&1 || true
            line=$(grep '^RESULT' "$LOGS/ab-fanout.log") || { cat "$LOGS/ab-fanout.log" >&2; die "fan-out failed"; }
            VALUE=$(field last_ms "$line")
            CPU=$(field server_cpu_ms "$line")
            ;;
    esac
    stop "$server"
}

say "== A/B, $scenario: A=$1 B=$2, $BENCH_REPEAT rounds"
declare -A first cpu
first[A]="" first[B]="" cpu[A]="" cpu[B]=""
cpu_unit="ms"
[[ $scenario == dispatch* ]] && cpu_unit="µs per request"
for round in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    # A first in odd rounds, B first in even ones: whatever a run leaves behind for the next (sockets in
    # TIME_WAIT, a warmer or colder cache, the host's drift) falls on both builds alike.
    order="A B"
    [ $((round % 2)) -eq 0 ] && order="B A"
    for side in $order; do
        binary=$1
        [ "$side" = B ] && binary=$2
        measure "$binary"
        note "round $round $side: $VALUE${CPU:+ (server CPU $CPU $cpu_unit)}"
        first[$side]+=" $VALUE"
        cpu[$side]+=" $CPU"
    done
done
unit="ms until the last answer"
[[ $scenario == dispatch* ]] && unit="req/s"
for side in A B; do
    # shellcheck disable=SC2086
    note "$side: median $(median ${first[$side]}) $unit (runs:${first[$side]}); server CPU median $(median ${cpu[$side]}) $cpu_unit"
done
# shellcheck disable=SC2086
note "B/A: $(ratio "$(median ${first[B]})" "$(median ${first[A]})")"
