#!/usr/bin/env bash
# How much work per request the dispatch target leaves room for: the C floor of scenario 1 with a calibrated
# CPU burn added to each POST (floor_post's WORK_NS), under the same wrk load, against the plain floor and
# remvvm-server in the same rounds. The work at which the floor falls to 0.6 of itself is the budget a server
# on libmicrohttpd has for everything it does beyond the floor (request value, routing, session, decoding, the
# store, the answer); compare it with what `remvvm-bench 1000000 api` measures in-process.
#   bench/budget.sh                 work 0 1000 2000 3000 4000 6000 8000 ns, BENCH_REPEAT rounds, medians
#   BUDGET_WORK="0 2000 4000" bench/budget.sh
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
WORK=${BUDGET_WORK:-0 1000 2000 3000 4000 6000 8000}

start_server
server=$PID
"$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/sessions-64.txt" >/dev/null
read -r sid token _ <"$BIN/sessions-64.txt"
answer=$(curl -sf -o /dev/null -w '%{size_download}' -X POST -H "Authorization: Bearer $token" \
    -H 'Content-Type: application/json' -d '{"type":"counter/increase"}' \
    "http://127.0.0.1:$SERVER_PORT/v1/sessions/$sid/actions?views=counter")
"$BIN/mksessions" --fake f 64 "$BIN/floor-sessions-64.txt"

say "== work budget: wrk -t2 -c64 -d${BENCH_DURATION}s against the floor with WORK_NS of CPU per POST ($WORK)"
declare -A rps cpu
for work in $WORK server; do rps[$work]=""; cpu[$work]=""; done
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    for work in $WORK server; do
        if [ "$work" = server ]; then
            line=$(run_wrk "$SERVER_PORT" "$BIN/sessions-64.txt" "$server")
        else
            start floor_post "$FLOOR_PORT" /healthz "$BIN/floor_post" "$FLOOR_PORT" "$answer" "$THREADS" "$work"
            line=$(run_wrk "$FLOOR_PORT" "$BIN/floor-sessions-64.txt" "$PID")
            stop "$PID"
        fi
        note "round $rep, $work: $line"
        rps[$work]+=" $(field rps "$line")"
        cpu[$work]+=" $(field cpu_us "$line")"
    done
done
stop "$server"

# shellcheck disable=SC2086
base=$(median ${rps[${WORK%% *}]})
printf '\n| work per POST | req/s | of the plain floor | server CPU µs per request |\n| ---: | ---: | ---: | ---: |\n'
for work in $WORK server; do
    # shellcheck disable=SC2086
    r=$(median ${rps[$work]})
    # shellcheck disable=SC2086
    c=$(median ${cpu[$work]})
    label="$work ns"
    [ "$work" = server ] && label="remvvm-server"
    printf '| %s | %s | %s | %s |\n' "$label" "$r" "$(ratio "$r" "$base")" "$c"
done
