#!/usr/bin/env bash
# Scenarios 2 and 3 - fan-out. usage: bench/fanout.sh poll|sse
#   poll: BENCH_FANOUT_N long-polls parked on one session, and separately one on each of BENCH_FANOUT_N
#         sessions; then one dispatch (on every session, in the second case) changes their counter view.
#   sse : BENCH_FANOUT_N event streams on one session, one dispatch.
# Reported: the time from the (first) dispatch until the last subscriber has its answer, the server's CPU
# time over that window per subscriber (informative: the CPU a change costs, less noisy than the wall
# time on a shared machine), the whole machine's busy time over that window per subscriber (the client's and
# the kernel's interrupt work included, which no process is charged for), and the server's RSS before, while
# parked and after. Each run gets a fresh server; the same client (bench/clients/fanout.c, a separate
# process) drives remvvm-server, the C floor (bench/floor/floor_fanout.c: suspend/resume and nothing else)
# and nginx+nchan when installed, in turns (every other run in reverse order). The long-polls also run
# against the floor set up as remvvm-server sets up libmicrohttpd (`floor_fanout ... tuned`: a 4.5 KiB pool
# per connection, resumes paced by the same rule), which is what libmicrohttpd alone costs at its best; it
# has no target. Medians of BENCH_FANOUT_REPEAT runs.
source "$(dirname "$0")/lib.sh"

proto=${1:-poll}
case $proto in poll | sse) ;; *) die "usage: $0 poll|sse" ;; esac
need_tools
build_c
build_server
nchan=0
nchan_note=$(have_nchan) && nchan=1
N=$BENCH_FANOUT_N
modes=${BENCH_FANOUT_MODES:-one many}
[ "$proto" = sse ] && modes="one"

if [ "$proto" = poll ]; then
    say "== 2. long-poll fan-out: $N long-polls (one session; and one each on $N sessions), one change"
else
    say "== 3. SSE fan-out: $N event streams on one session, one change"
fi
[ "$nchan" = 1 ] || say "   $nchan_note"

# run_one TARGET MODE: one measurement on a fresh server; sets LINE to the client's RESULT line
# (not run in a subshell, so the exit trap still sees every process it starts).
LINE=""
run_one() {
    local target=$1 mode=$2 count=1
    [ "$mode" = many ] && count=$N
    start_fanout_target "$target" "$proto" "$count" "$BIN/fanout-sessions.txt"
    "$BIN/fanout" "$proto" "$FANOUT_PORT" "$BIN/fanout-sessions.txt" "$N" "$mode" --pids "$FANOUT_PIDS" \
        "${FANOUT_READY[@]}" >"$LOGS/fanout.log" 2>&1 || true
    LINE=$(grep '^RESULT' "$LOGS/fanout.log" || true)
    [ -n "$LINE" ] || { cat "$LOGS/fanout.log" >&2; die "the fan-out client failed against $target"; }
    stop_fanout_target "$target"
}

targets="floor ours"
[ "$nchan" = 1 ] && targets="floor ours nchan"
declare -A last perkib before parked after bad cpu busy
for rep in $(seq "$BENCH_FANOUT_REPEAT"); do
    wait_for_idle_machine
    for mode in $modes; do
        mode_targets=$targets
        [ "$proto" = poll ] && mode_targets="$targets floor-tuned"
        # Every other run in reverse order: a server measured right after another one inherits its leftovers
        # (10,000 closing connections, a busier page allocator), so no target always goes second.
        [ $((rep % 2)) = 0 ] && mode_targets=$(printf '%s\n' $mode_targets | tac | tr '\n' ' ')
        for target in $mode_targets; do
            run_one "$target" "$mode"
            line=$LINE
            note "run $rep $target $mode: $(grep -v '^RESULT' "$LOGS/fanout.log" | grep -E '^fanout|^server' | tr '\n' ' ')"
            k="$target.$mode"
            last[$k]+=" $(field last_ms "$line")"
            cpu[$k]+=" $(awk -v c="$(field server_cpu_ms "$line")" -v n="$N" \
                'BEGIN { if (c == "" || c < 0) print "nan"; else printf "%.1f", c * 1000 / n }')"
            # The whole machine's busy time (user, system, interrupts) over the window: the processes' CPU time
            # leaves out the loopback network's softirq work, which differs between the servers.
            busy[$k]+=" $(awk -v u="$(field machine_user_ms "$line")" -v s="$(field machine_sys_ms "$line")" \
                -v i="$(field machine_irq_ms "$line")" -v n="$N" \
                'BEGIN { if (u == "" || u < 0) print "nan"; else printf "%.1f", (u + s + i) * 1000 / n }')"
            b=$(field rss_before_kib "$line")
            p=$(field rss_parked_kib "$line")
            before[$k]+=" $b"
            parked[$k]+=" $p"
            after[$k]+=" $(field rss_after_kib "$line")"
            perkib[$k]+=" $(awk -v b="$b" -v p="$p" -v n="$N" 'BEGIN { printf "%.2f", (p - b) / n }')"
            if [ "$(field answered "$line")" != "$N" ] || [ "$(field non200 "$line")" != 0 ]; then
                bad[$k]=1
                note "WARNING: $target $mode: only $(field answered "$line") of $N answered (non-200: $(field non200 "$line"))"
            fi
        done
    done
done

mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
for mode in $modes; do
    what="long-poll, 1 session"
    [ "$mode" = many ] && what="long-poll, $N sessions"
    [ "$proto" = sse ] && what="SSE, 1 session"
    scen="2 long-poll"
    [ "$proto" = sse ] && scen="3 SSE"
    # shellcheck disable=SC2086
    {
        o=$(median ${last[ours.$mode]})
        f=$(median ${last[floor.$mode]})
        opk=$(median ${perkib[ours.$mode]})
        fpk=$(median ${perkib[floor.$mode]})
        orss="$(mib "$(median ${before[ours.$mode]})")/$(mib "$(median ${parked[ours.$mode]})")/$(mib "$(median ${after[ours.$mode]})")"
        frss="$(mib "$(median ${before[floor.$mode]})")/$(mib "$(median ${parked[floor.$mode]})")/$(mib "$(median ${after[floor.$mode]})")"
    }
    ok=1
    [ -z "${bad[ours.$mode]:-}" ] || ok=0
    if [ "$proto" = poll ]; then
        cond="$o <= 1.5 * $f && $ok == 1"
        target="<=1.5x floor"
        if [ "$nchan" = 1 ]; then
            # shellcheck disable=SC2086
            x=$(median ${last[nchan.$mode]})
            cond="$cond && $o <= $x"
            target="<=1.5x floor, <=nchan"
        fi
        record "$scen" "$what: last answer ms" "$o" "$f" "$(ratio "$o" "$f")" "$target" "$(verdict "$cond")"
        [ "$nchan" = 1 ] && record "$scen" "$what: last answer ms, vs nginx+nchan" "$o" "$x" "$(ratio "$o" "$x")" \
            "<=nchan" "$(verdict "$o <= $x")"
        record "$scen" "$what: RSS KiB per parked poll" "$opk" "$fpk" "$(ratio "$opk" "$fpk")" "<=8 KiB" \
            "$(verdict "$opk <= 8")"
    else
        record "$scen" "$what: last event ms" "$o" "$f" "$(ratio "$o" "$f")" "" ""
        if [ "$nchan" = 1 ]; then
            # shellcheck disable=SC2086
            x=$(median ${last[nchan.$mode]})
            record "$scen" "$what: last event ms, vs nginx+nchan" "$o" "$x" "$(ratio "$o" "$x")" "" ""
        fi
        record "$scen" "$what: RSS KiB per stream" "$opk" "$fpk" "$(ratio "$opk" "$fpk")" "" ""
    fi
    # shellcheck disable=SC2086
    {
        oc=$(median ${cpu[ours.$mode]})
        fc=$(median ${cpu[floor.$mode]})
    }
    record "$scen" "$what: server CPU µs per subscriber" "$oc" "$fc" "$(ratio "$oc" "$fc")" "" ""
    if [ "$nchan" = 1 ]; then
        # shellcheck disable=SC2086
        xc=$(median ${cpu[nchan.$mode]})
        record "$scen" "$what: server CPU µs per subscriber, vs nginx+nchan" "$oc" "$xc" "$(ratio "$oc" "$xc")" "" ""
        # shellcheck disable=SC2086
        {
            ob=$(median ${busy[ours.$mode]})
            xb=$(median ${busy[nchan.$mode]})
        }
        record "$scen" "$what: machine busy µs per subscriber, vs nginx+nchan" "$ob" "$xb" \
            "$(ratio "$ob" "$xb")" "" ""
    fi
    if [ "$proto" = poll ]; then
        # shellcheck disable=SC2086
        {
            t=$(median ${last[floor-tuned.$mode]})
            tc=$(median ${cpu[floor-tuned.$mode]})
        }
        record "$scen" "$what: last answer ms, vs the floor set up as ours" "$o" "$t" "$(ratio "$o" "$t")" "" ""
        record "$scen" "$what: server CPU µs per subscriber, vs the floor set up as ours" "$oc" "$tc" \
            "$(ratio "$oc" "$tc")" "" ""
    fi
    record "$scen" "$what: RSS MiB before/parked/after" "$orss" "$frss" "" "" ""
    if [ "$nchan" = 1 ]; then
        # shellcheck disable=SC2086
        nrss="$(mib "$(median ${before[nchan.$mode]})")/$(mib "$(median ${parked[nchan.$mode]})")/$(mib "$(median ${after[nchan.$mode]})")"
        note "nginx+nchan ($what): RSS MiB before/parked/after $nrss (master + 2 workers; shared memory counted per process)"
    fi
done
