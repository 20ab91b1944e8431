#!/usr/bin/env bash
# Where the two workers run, and what it costs: the dispatch load of scenario 1a against one server whose
# worker threads are placed by hand between runs (taskset -p on each remvvm-http-N thread; MHD-worker in the floor), in
# turns for BENCH_REPEAT rounds:
#   together  both workers on the first CPU      (what the scheduler sometimes settles on by itself)
#   apart     one worker on each of the first two CPUs (what --pin-workers does)
#   free      both allowed on every CPU           (the default)
# With `floor` as argument, the C floor's two workers are placed the same way instead.
# usage: bench/placement.sh [server|floor]
source "$(dirname "$0")/lib.sh"

who=${1:-server}
case $who in server | floor) ;; *) die "usage: bench/placement.sh [server|floor]" ;; esac
need_tools
build_c
build_server
command -v taskset >/dev/null || die "taskset is required (util-linux)"
cpus=$(awk -F: '/^Cpus_allowed_list/ { gsub(/[ \t]/, "", $2); print $2 }' /proc/self/status)
# The first two allowed CPUs, from a list such as 0-1 or 0,2-3.
read -r first second _ < <(printf '%s\n' "$cpus" | tr ',' '\n' |
    awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) printf "%d ", c } END { print "" }')
[ -n "$second" ] || die "two CPUs are needed, this process may only use $cpus"
wait_for_idle_machine

start_server
server=$PID
"$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/placement-sessions.txt" >/dev/null
pid=$server port=$SERVER_PORT
if [ "$who" = floor ]; then
    answer=$(sed -n '1p' "$BIN/placement-sessions.txt" | {
        read -r id token _
        curl -sf -o /dev/null -w '%{size_download}' -X POST -H "Authorization: Bearer $token" \
            -H 'Content-Type: application/json' -d '{"type":"counter/increase"}' \
            "http://127.0.0.1:$SERVER_PORT/v1/sessions/$id/actions?views=counter"
    })
    start floor_post "$FLOOR_PORT" /healthz "$BIN/floor_post" "$FLOOR_PORT" "$answer" "$THREADS"
    pid=$PID port=$FLOOR_PORT
fi
# The server's workers are the transport's own threads; the floor's are libmicrohttpd's.
name=remvvm-http-
[ "$who" = floor ] && name=MHD-worker
workers=$(for task in /proc/"$pid"/task/*; do if grep -q "^$name" "$task/comm"; then basename "$task"; fi; done)
[ "$(printf '%s\n' $workers | wc -l)" -eq 2 ] || die "expected two $name threads (--threads 2), found: $workers"

say "== $who: wrk -t2 -c64 -d${BENCH_DURATION}s, workers placed by hand (CPUs allowed: $cpus)"
for round in $(seq "$BENCH_REPEAT"); do
    for placement in together apart free; do
        index=0
        for worker in $workers; do
            case $placement in
                together) taskset -p -c "$first" "$worker" >/dev/null ;;
                apart) taskset -p -c $((index == 0 ? first : second)) "$worker" >/dev/null ;;
                free) taskset -p -c "$cpus" "$worker" >/dev/null ;;
            esac
            index=$((index + 1))
        done
        line=$(run_wrk "$port" "$BIN/placement-sessions.txt" "$pid")
        note "round $round $placement: $(field rps "$line") req/s, p50 $(field p50_us "$line") µs," \
            "p99 $(field p99_us "$line") µs, server CPU $(field cpu_us "$line") µs per request"
    done
done
