#!/usr/bin/env bash
# Scenario 9 - topics. One chat/post to a room of BENCH_TOPICS_N member sessions of the example app, each
# member with a long-poll parked on its own `chat` view: the post reaches every member through the room's
# topic (a dispatch into each member's store), and the time is from the post until the last member's poll is
# answered. In the same run, by the same client (bench/clients/fanout.c, mode "room" against mode "one"):
# today's path, BENCH_TOPICS_N long-polls parked on one session's counter view and one dispatch; and
# nginx+nchan publishing one message to BENCH_TOPICS_N long-poll subscribers of one channel, when installed.
# Each run gets a fresh server (durability off, as every fan-out scenario); medians of BENCH_FANOUT_REPEAT runs,
# the targets in turns (every other run in reverse order).
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
nchan=0
nchan_note=$(have_nchan) && nchan=1
N=${BENCH_TOPICS_N:-1000}
SESSIONS="$BIN/topics-sessions.txt"

say "== 9. topics: one post to a room of $N member sessions with a long-poll each, beside $N long-polls on one session"
[ "$nchan" = 1 ] || say "   $nchan_note"

# run_one TARGET: one measurement on a fresh server; sets LINE to the client's RESULT line.
LINE=""
run_one() {
    local target=$1 mode=one
    case $target in
        room)
            start_server
            FANOUT_PIDS=$PID FANOUT_PORT=$SERVER_PORT
            "$BIN/mksessions" "$SERVER_PORT" "$N" 32 "$SESSIONS" --join bench >"$LOGS/mksessions.log" \
                || die "creating the room's members failed: $(cat "$LOGS/mksessions.log")"
            FANOUT_READY=(--ready /metrics remvvm_parked_polls)
            mode=room
            ;;
        one) start_fanout_target ours poll 1 "$SESSIONS" ;;
        nchan) start_fanout_target nchan poll "$N" "$SESSIONS" ;;
    esac
    "$BIN/fanout" poll "$FANOUT_PORT" "$SESSIONS" "$N" "$mode" --pids "$FANOUT_PIDS" "${FANOUT_READY[@]}" \
        >"$LOGS/topics.log" 2>&1 || true
    LINE=$(grep '^RESULT' "$LOGS/topics.log" || true)
    [ -n "$LINE" ] || { cat "$LOGS/topics.log" >&2; die "the fan-out client failed against $target"; }
    if [ "$target" = nchan ]; then stop_nchan "${FANOUT_PIDS%%,*}"; else stop "${FANOUT_PIDS%%,*}"; fi
}

targets="room one"
[ "$nchan" = 1 ] && targets="room one nchan"
declare -A last cpu bad
for rep in $(seq "$BENCH_FANOUT_REPEAT"); do
    wait_for_idle_machine
    order=$targets
    [ $((rep % 2)) = 0 ] && order=$(printf '%s\n' $targets | tac | tr '\n' ' ')
    for target in $order; do
        run_one "$target"
        note "run $rep $target: $(grep -E '^fanout|^server' "$LOGS/topics.log" | tr '\n' ' ')"
        last[$target]+=" $(field last_ms "$LINE")"
        cpu[$target]+=" $(awk -v c="$(field server_cpu_ms "$LINE")" -v n="$N" \
            'BEGIN { if (c == "" || c < 0) print "nan"; else printf "%.1f", c * 1000 / n }')"
        if [ "$(field answered "$LINE")" != "$N" ] || [ "$(field non200 "$LINE")" != 0 ]; then
            bad[$target]=1
            note "WARNING: $target: only $(field answered "$LINE") of $N answered (non-200: $(field non200 "$LINE"))"
        fi
    done
done

# shellcheck disable=SC2086
{
    r=$(median ${last[room]})
    o=$(median ${last[one]})
    rc=$(median ${cpu[room]})
    oc=$(median ${cpu[one]})
}
record "9 topics" "room of $N sessions: last answer ms, vs $N polls on 1 session" "$r" "$o" "$(ratio "$r" "$o")" "" \
    "$([ -z "${bad[room]:-}" ] && echo ok || echo FAIL)"
record "9 topics" "room of $N sessions: server CPU µs per member, vs 1 session" "$rc" "$oc" "$(ratio "$rc" "$oc")" "" ""
if [ "$nchan" = 1 ]; then
    # shellcheck disable=SC2086
    {
        x=$(median ${last[nchan]})
        xc=$(median ${cpu[nchan]})
    }
    record "9 topics" "room of $N sessions: last answer ms, vs nginx+nchan" "$r" "$x" "$(ratio "$r" "$x")" "" ""
    record "9 topics" "room of $N sessions: server CPU µs per member, vs nginx+nchan" "$rc" "$xc" \
        "$(ratio "$rc" "$xc")" "" ""
fi
