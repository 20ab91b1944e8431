#!/usr/bin/env bash
# Scenario 1 - dispatch over HTTP. wrk, 2 threads, 64 keep-alive connections, BENCH_DURATION seconds,
# POSTing {"type":"counter/increase"} to /v1/sessions/{id}/actions?views=counter (the counter view only,
# so the answer stays small), (a) spread over 64 sessions, (b) all on one session. The floor is
# bench/floor/floor_post.c answering every POST with a JSON body as long as the server's answer,
# driven by the same wrk script. Runs alternate floor / (a) / (b) BENCH_REPEAT times; medians reported.
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server

say "== 1. dispatch over HTTP: wrk -t2 -c64 -d${BENCH_DURATION}s, counter/increase, ?views=counter"
start_server
server=$PID
"$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/sessions-64.txt" >/dev/null
head -1 "$BIN/sessions-64.txt" >"$BIN/sessions-1.txt"
read -r sid token _ <"$BIN/sessions-1.txt"
answer=$(curl -sf -o /dev/null -w '%{size_download}' -X POST -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d '{"type":"counter/increase"}' \
    "http://127.0.0.1:$SERVER_PORT/v1/sessions/$sid/actions?views=counter")
note "server answer: $answer bytes of JSON; the floor answers with the same size"

"$BIN/mksessions" --fake f 64 "$BIN/floor-sessions-64.txt"
head -1 "$BIN/floor-sessions-64.txt" >"$BIN/floor-sessions-1.txt"
start floor_post "$FLOOR_PORT" /healthz "$BIN/floor_post" "$FLOOR_PORT" "$answer" "$THREADS"
floor=$PID

declare -A rps p50 p99 cpu errs
for kind in floor many one; do rps[$kind]=""; p50[$kind]=""; p99[$kind]=""; cpu[$kind]=""; errs[$kind]=0; done
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    for kind in floor many one; do
        case $kind in
            floor) line=$(run_wrk "$FLOOR_PORT" "$BIN/floor-sessions-64.txt" "$floor") ;;
            many) line=$(run_wrk "$SERVER_PORT" "$BIN/sessions-64.txt" "$server") ;;
            one) line=$(run_wrk "$SERVER_PORT" "$BIN/sessions-1.txt" "$server") ;;
        esac
        note "run $rep $kind: $line"
        rps[$kind]+=" $(field rps "$line")"
        p50[$kind]+=" $(field p50_us "$line")"
        p99[$kind]+=" $(field p99_us "$line")"
        cpu[$kind]+=" $(field cpu_us "$line")"
        errs[$kind]=$((errs[$kind] + $(field errors "$line") + $(field status_errors "$line")))
    done
done
stop "$floor"
stop "$server"

# shellcheck disable=SC2086
{
    f_rps=$(median ${rps[floor]})
    f_p50=$(median ${p50[floor]})
    f_p99=$(median ${p99[floor]})
    f_cpu=$(median ${cpu[floor]})
}
ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
for kind in many one; do
    label="dispatch, 64 sessions"
    [ "$kind" = one ] && label="dispatch, 1 session"
    # shellcheck disable=SC2086
    o_rps=$(median ${rps[$kind]})
    # shellcheck disable=SC2086
    o_p50=$(median ${p50[$kind]})
    # shellcheck disable=SC2086
    o_p99=$(median ${p99[$kind]})
    # shellcheck disable=SC2086
    o_cpu=$(median ${cpu[$kind]})
    r=$(ratio "$o_rps" "$f_rps")
    v=$(verdict "$r >= 0.6 && $o_p99 < 5000 && ${errs[$kind]} == 0")
    record "1 dispatch" "$label: req/s" "$o_rps" "$f_rps" "$r" ">=0.6x floor, p99<5ms" "$v"
    record "1 dispatch" "$label: p50 ms" "$(ms "$o_p50")" "$(ms "$f_p50")" "$(ratio "$o_p50" "$f_p50")" "" ""
    record "1 dispatch" "$label: p99 ms" "$(ms "$o_p99")" "$(ms "$f_p99")" "$(ratio "$o_p99" "$f_p99")" "<5 ms" \
        "$(verdict "$o_p99 < 5000")"
    record "1 dispatch" "$label: server CPU us per request" "$o_cpu" "$f_cpu" "$(ratio "$o_cpu" "$f_cpu")" "" ""
    [ "${errs[$kind]}" = 0 ] || note "WARNING: $label: ${errs[$kind]} socket errors or non-2xx answers"
done
