#!/usr/bin/env bash
# Where the many-session fan-out's CPU goes, by kind: one long-poll on each of BENCH_FANOUT_N sessions, each
# changed by a dispatch of its own (scenario 2's second case), against remvvm-server, nginx+nchan (when
# installed) and the floor set up as ours, in turns, BENCH_REPEAT rounds. Prints, per run, the last answer and
# the server's CPU split into user and system time, with the client's own CPU, all over the client's window,
# and where the whole machine's time went over that window: user, system, interrupts (the loopback network's
# softirq work, which the kernel charges to no process, so the processes' figures leave it out), idle and
# stolen.
# With BENCH_SYSCALLS=1 each run is also recorded (`perf record -e raw_syscalls:sys_enter -e
# sched:sched_switch`, cut to the window) and the system calls per change are listed by number.
# Give several server builds to compare them in turns instead of the three targets (an `LD_PRELOAD` or an
# option goes through a wrapper script).
# usage: bench/cpusplit.sh [SERVER_BINARY ...]
source "$(dirname "$0")/lib.sh"

need_tools
build_c
servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
    build_server
    servers=("$SERVER_BIN")
    targets="ours floor-tuned"
    have_nchan >/dev/null && targets="ours nchan floor-tuned"
else
    for binary in "${servers[@]}"; do [ -x "$binary" ] || die "$binary is not an executable server build"; done
    targets=ours
fi
if [ "${BENCH_SYSCALLS:-0}" = 1 ]; then
    command -v perf >/dev/null || apt_install linux-perf || die "perf is required (apt-get install linux-perf)"
fi

# run_split TARGET: one fan-out on a fresh TARGET; prints its figures.
run_split() {
    local target=$1 log="$LOGS/cpusplit-fanout.log" line
    if [ "${BENCH_SYSCALLS:-0}" = 1 ]; then
        recorded_fanout "$target" "$BIN/cpusplit-sessions.txt" "$log" \
            -k mono -e raw_syscalls:sys_enter -e sched:sched_switch -o "$BIN/perf-cpusplit.data"
    else
        start_fanout_target "$target" poll "$BENCH_FANOUT_N" "$BIN/cpusplit-sessions.txt"
        "$BIN/fanout" poll "$FANOUT_PORT" "$BIN/cpusplit-sessions.txt" "$BENCH_FANOUT_N" many \
            --pids "$FANOUT_PIDS" "${FANOUT_READY[@]}" >"$log" 2>&1 || true
        stop_fanout_target "$target"
    fi
    line=$(grep '^RESULT' "$log") || die "the fan-out client failed against $target: $(tail -3 "$log")"
    say "   $target: last answer $(field last_ms "$line") ms; server CPU $(field server_cpu_ms "$line") ms" \
        "(user $(field server_user_ms "$line"), system $(field server_sys_ms "$line")); client $(field client_cpu_ms "$line") ms;" \
        "$(field server_minor_faults "$line") page faults"
    say "      the machine over the window: user $(field machine_user_ms "$line"), system $(field machine_sys_ms "$line")," \
        "interrupts $(field machine_irq_ms "$line"), idle $(field machine_idle_ms "$line"), stolen" \
        "$(field machine_steal_ms "$line") ms of its $(nproc) CPUs' $(awk -v l="$(field last_ms "$line")" -v c="$(nproc)" \
            'BEGIN { printf "%.0f", l * c }') ms"
    [ "${BENCH_SYSCALLS:-0}" = 1 ] || return 0
    local window
    window=$(awk '/^window:/ { print $3 "," $4 }' "$log")
    perf script -i "$BIN/perf-cpusplit.data" --time "$window" -F event,trace 2>/dev/null \
        | awk -v n="$BENCH_FANOUT_N" '
            /sys_enter/ { match($0, /NR [0-9]+/); c["syscall " substr($0, RSTART + 3, RLENGTH - 3)]++ }
            /sched_switch/ { c["context switch"]++ }
            END { for (k in c) if (c[k] / n >= 0.01) printf "%.2f %s\n", c[k] / n, k }' \
        | sort -rn | sed 's/^/      per change: /'
}

say "== the many-session fan-out's CPU by kind ($BENCH_FANOUT_N sessions, 10 ms ticks)"
for round in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    say "   round $round"
    for target in $targets; do
        for binary in "${servers[@]}"; do
            SERVER_BIN=$binary
            [ ${#servers[@]} -gt 1 ] && say "   $binary"
            run_split "$target"
            [ "$target" = ours ] || break
        done
    done
done
