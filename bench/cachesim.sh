#!/usr/bin/env bash
# What one change of the many-session fan-out touches cold: one long-poll on each of BENCH_FANOUT_N sessions,
# each changed by a dispatch of its own (scenario 2's second case), with the server under valgrind's cache
# simulation (`callgrind --cache-sim=yes`, a last-level cache of BENCH_LL_BYTES, 8 MiB by default), counted
# from the moment every poll is parked (`callgrind_control --zero`) to the last answer (`--dump`). Prints, per
# change, the instructions and the last-level read and write misses of remvvm-server and of the C floor set up
# as ours, then ours' functions by last-level read misses. The counts do not depend on the host's load, which
# the timings of this shared machine do; but the simulated cache is not this host's, so a change in misses is
# a lead to measure with bench/ab.sh, not a result (BENCHMARKS.md, the round "each worker woken once per
# resume batch").
# usage: bench/cachesim.sh [SERVER_BINARY]   (about 3 minutes at 10,000; valgrind slows each server 30-80x)
source "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null || apt_install valgrind || die "valgrind is required (apt-get install valgrind)"
need_tools
build_c
use_server "$@"
N=$BENCH_FANOUT_N
LL=${BENCH_LL_BYTES:-8388608}
OUT="$BIN/cachesim"
mkdir -p "$OUT"
# valgrind cannot read the Swift toolchain's debug information: a copy without it keeps the symbols.
cp "$SERVER_BIN" "$OUT/remvvm-server" && strip --strip-debug "$OUT/remvvm-server"

# simulate NAME PORT GAUGE_PATH GAUGE_KEY SESSIONS_ARGS... -- COMMAND...: one fan-out with COMMAND under
# callgrind; leaves the counts of the window in $OUT/NAME.out.1.
simulate() {
    local name=$1 port=$2 gauge_path=$3 gauge_key=$4
    shift 4
    local sessions=()
    while [ "$1" != -- ]; do sessions+=("$1"); shift; done
    shift
    rm -f "$OUT/$name.out"*
    valgrind --tool=callgrind --cache-sim=yes --LL="$LL,16,64" --dump-instr=no \
        --callgrind-out-file="$OUT/$name.out" "$@" >"$LOGS/cachesim-$name.log" 2>&1 &
    local pid=$!
    STARTED+=("$pid")
    local waited=0
    until curl -sf -o /dev/null "http://127.0.0.1:$port/healthz"; do
        sleep 0.5
        waited=$((waited + 1))
        [ "$waited" -lt 240 ] || die "$name did not start under valgrind in 2 minutes"
    done
    "$BIN/mksessions" "${sessions[@]}" >/dev/null
    "$BIN/fanout" poll "$port" "$OUT/sessions.txt" "$N" many --pids "$pid" --ready "$gauge_path" "$gauge_key" \
        >"$LOGS/cachesim-$name-fanout.log" 2>&1 &
    local client=$!
    STARTED+=("$client")
    # Zero the counters once every poll is parked: the client then waits for the server to go quiet.
    waited=0
    until [ "$(http_value "$port" "$gauge_path" "$gauge_key")" = "$N" ]; do
        sleep 0.2
        waited=$((waited + 1))
        [ "$waited" -lt 3000 ] || die "the polls did not all park under valgrind in 10 minutes"
    done
    callgrind_control -z "$pid" >/dev/null
    wait "$client" || true
    forget "$client"
    callgrind_control -d "$pid" >/dev/null
    stop "$pid"
    grep -q "answered=$N " "$LOGS/cachesim-$name-fanout.log" \
        || die "not every poll was answered under valgrind: $(grep '^fanout' "$LOGS/cachesim-$name-fanout.log")"
}

# http_value PORT PATH KEY: the number after KEY in GET PATH (a metrics line or a JSON member).
http_value() {
    curl -s "http://127.0.0.1:$1$2" | tr ',{}' '\n' | sed -n "s/^\"\{0,1\}$3\"\{0,1\}[: ]*\([0-9]*\).*/\1/p" | head -1
}

# per_change NAME: instructions, LL read misses and LL write misses per change in the window.
per_change() {
    callgrind_annotate --threshold=100 --show=Ir,DLmr,DLmw "$OUT/$1.out.1" 2>/dev/null | grep 'PROGRAM TOTALS' \
        | tr -d ',' | awk -v n="$N" '{ printf "%.0f instructions, %.1f last-level read misses, %.1f write misses", $1 / n, $3 / n, $5 / n }'
}

# demangled: Swift symbol names made readable when the toolchain is on PATH.
demangled() { if command -v swift >/dev/null; then swift demangle --simplified; else cat; fi; }

say "== the many-session fan-out under cache simulation ($N sessions, last-level cache $LL bytes)"
simulate ours "$SERVER_PORT" /metrics remvvm_parked_polls "$SERVER_PORT" "$N" 32 "$OUT/sessions.txt" -- \
    "$OUT/remvvm-server" --host 127.0.0.1 --port "$SERVER_PORT" --threads "$THREADS" --connection-limit 19000 \
    --connections-per-client 0 \
    --max-polls-per-session 20000 --max-sessions $((N + 50000)) --log-level warning --durability off \
    --data-dir "$OUT/data"
simulate floor-tuned "$FLOOR_PORT" /count waiting --fake f "$N" "$OUT/sessions.txt" -- \
    "$BIN/floor_fanout" "$FLOOR_PORT" "$THREADS" 19000 tuned
say "   remvvm-server:            $(per_change ours) per change"
say "   floor set up as ours:     $(per_change floor-tuned) per change"
say "   remvvm-server by function (last-level read misses per change; $OUT/ours.out.1 has the rest):"
callgrind_annotate --threshold=100 --show=DLmr --sort=DLmr "$OUT/ours.out.1" 2>/dev/null \
    | demangled \
    | grep -E '^ *[0-9,]+ ' | grep -v -E 'PROGRAM TOTALS|clone\.S|pthread_create\.c' | head -25 | tr -d ',' \
    | awk -v n="$N" '{ c = $1; sub(/^ *[0-9]+ *\( *[0-9.]+%\) */, ""); printf "     %6.2f  %s\n", c / n, substr($0, 1, 110) }'
