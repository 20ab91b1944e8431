#!/usr/bin/env bash
# Scenario 12 - the Swift client. One client sends, another follows the same session, over loopback against the
# counter example built for release (counter-example): the time from `send` to the follower's new view, p50 and
# p99, and the client process's CPU per change (sender and follower in one process; each change is one patch the
# follower applies). `counter-client URL bench N` (release) is the Swift client; bench/clients/follow.c makes the
# same requests through raw HTTP in C, in the same run, as the yardstick. Then the Swift follower alone, in its
# own process (`counter-client follow`) beside the C client on the same session: its CPU per applied patch. Both
# by long-poll and by event stream. BENCH_CLIENT_N changes per run (500), medians of BENCH_REPEAT runs, the two
# clients in turns; each run is bounded (120 s).
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server counter-example
# The client links FoundationNetworking, whose static library needs libcurl's development files: built with the
# Swift runtime as shared libraries (as an app's client would be), otherwise as the servers are.
say "building counter-client (release, cross-module optimization, scratch path .build-bench)"
(cd "$REPO_DIR" && swift build -c release -Xswiftc -cross-module-optimization --product counter-client \
    --scratch-path "$SCRATCH" >"$LOGS/build-counter-client.log" 2>&1) \
    || { tail -30 "$LOGS/build-counter-client.log" >&2; die "swift build of counter-client failed"; }
N=${BENCH_CLIENT_N:-500}
EXAMPLE="$SCRATCH/release/counter-example"
CLIENT="$SCRATCH/release/counter-client"

say "== 12. Swift client: send to the follower's new view, $N changes, long-poll and event stream, beside C"

# run_one CLIENT FEED: one measurement on a fresh server; sets LINE to the client's RESULT line.
LINE=""
run_one() {
    local client=$1 feed=$2 folder
    port_free "$SERVER_PORT" || die "127.0.0.1:$SERVER_PORT is in use (set BENCH_PORT to another base port)"
    "$EXAMPLE" "$SERVER_PORT" >"$LOGS/counter-example.log" 2>&1 &
    PID=$!
    STARTED+=("$PID")
    wait_http "$SERVER_PORT" /healthz
    case $client in
        swift)
            folder=$(mktemp -d "$BIN/client.XXXXXX")
            local env_feed=event-stream
            [ "$feed" = poll ] && env_feed=long-poll
            COUNTER_CLIENT_DIR=$folder COUNTER_CLIENT_FEED=$env_feed timeout 120 \
                "$CLIENT" "http://127.0.0.1:$SERVER_PORT/" bench "$N" >"$LOGS/client.log" 2>&1 || true
            rm -rf "$folder"
            ;;
        c) timeout 120 "$BIN/follow" "$SERVER_PORT" "$N" "$feed" >"$LOGS/client.log" 2>&1 || true ;;
    esac
    stop "$PID"
    LINE=$(grep '^RESULT' "$LOGS/client.log" || true)
    [ -n "$LINE" ] || { cat "$LOGS/client.log" >&2; die "the $client client ($feed) failed"; }
}

# cpu_ns PID: the CPU time of a process's threads so far, in nanoseconds (schedstat: finer than clock ticks).
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%d", t }'; }

# follower_cpu FEED: a Swift follower alone (`counter-client follow`, its own process) while the C client sends
# and follows on the same session; sets LINE to "cpu_us=<the follower's CPU per applied patch> patches=<count>".
follower_cpu() {
    local feed=$1 folder env_feed=event-stream id token follower t0 t1 i patches
    [ "$feed" = poll ] && env_feed=long-poll
    port_free "$SERVER_PORT" || die "127.0.0.1:$SERVER_PORT is in use (set BENCH_PORT to another base port)"
    "$EXAMPLE" "$SERVER_PORT" >"$LOGS/counter-example.log" 2>&1 &
    PID=$!
    STARTED+=("$PID")
    wait_http "$SERVER_PORT" /healthz
    folder=$(mktemp -d "$BIN/client.XXXXXX")
    COUNTER_CLIENT_DIR=$folder timeout 30 "$CLIENT" "http://127.0.0.1:$SERVER_PORT/" show >/dev/null \
        || die "counter-client could not make a session"
    id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$folder/counter-session.json")
    token=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["token"])' "$folder/counter-session.json")
    COUNTER_CLIENT_DIR=$folder COUNTER_CLIENT_FEED=$env_feed "$CLIENT" "http://127.0.0.1:$SERVER_PORT/" follow \
        >"$LOGS/follower.log" 2>&1 &
    follower=$!
    STARTED+=("$follower")
    for i in $(seq 300); do grep -q '^count: 0$' "$LOGS/follower.log" && break; sleep 0.1; done
    grep -q '^count: 0$' "$LOGS/follower.log" || die "the Swift follower showed no count within 30 s"
    t0=$(cpu_ns "$follower")
    timeout 120 "$BIN/follow" "$SERVER_PORT" "$N" "$feed" "$id" "$token" >"$LOGS/client.log" 2>&1 \
        || die "the C client failed beside the follower: $(tail -3 "$LOGS/client.log")"
    for i in $(seq 300); do grep -q "^count: $N\$" "$LOGS/follower.log" && break; sleep 0.1; done
    grep -q "^count: $N\$" "$LOGS/follower.log" || die "the Swift follower did not reach $N within 30 s"
    t1=$(cpu_ns "$follower")
    # Each line after the first is a new view the follower applied: a long-poll answer may carry several changes.
    patches=$(($(grep -c '^count:' "$LOGS/follower.log") - 1))
    stop "$follower"
    stop "$PID"
    rm -rf "$folder"
    LINE="cpu_us=$(awk -v t="$((t1 - t0))" -v n="$patches" 'BEGIN { printf "%.1f", t / 1e3 / n }') patches=$patches"
}

declare -A p50 p99 cpu alone
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    order="swift c"
    [ $((rep % 2)) = 0 ] && order="c swift"
    for feed in poll sse; do
        for client in $order; do
            run_one "$client" "$feed"
            note "run $rep $client $feed: $LINE"
            p50[$client$feed]+=" $(field p50_ms "$LINE")"
            p99[$client$feed]+=" $(field p99_ms "$LINE")"
            cpu[$client$feed]+=" $(field cpu_us "$LINE")"
        done
        follower_cpu "$feed"
        note "run $rep Swift follower alone, $feed: $LINE"
        alone[$feed]+=" $(field cpu_us "$LINE")"
    done
done

for feed in poll sse; do
    name="long-poll"
    [ "$feed" = sse ] && name="event stream"
    for measure in p50 p99; do
        declare -n values=$measure
        ours=$(median ${values[swift$feed]})
        theirs=$(median ${values[c$feed]})
        record "12 client" "send to follower's view, $name, $measure ms" "$ours" "$theirs (C)" \
            "$(ratio "$ours" "$theirs")" "report" "-"
        unset -n values
    done
    ours=$(median ${cpu[swift$feed]})
    theirs=$(median ${cpu[c$feed]})
    record "12 client" "client CPU µs per change (sender+follower), $name" "$ours" "$theirs (C)" \
        "$(ratio "$ours" "$theirs")" "report" "-"
    record "12 client" "follower alone: CPU µs per applied patch, $name" "$(median ${alone[$feed]})" "" "" \
        "report" "-"
done
