#!/usr/bin/env bash
# Scenario 2, continued - memory per parked long-poll when clients poll again: one long-poll on each of
# BENCH_FANOUT_N sessions is parked, answered by a dispatch on its session, and the same connection polls again
# (bench/clients/repoll.c). libmicrohttpd zeroes a connection's whole pool after its first answer, so the second
# park holds all of it where the first held the pages its request touched: the second park is what a server of
# re-polling clients holds. Reports the RSS growth per poll at the second park; the first park is in the log.
# Only remvvm-server: the floors do not read `since`, and the target is absolute.
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
N=$BENCH_FANOUT_N
say "== 2b. long-polls polling again: $N sessions, one long-poll each, answered, then polling again"

firsts="" seconds=""
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    start_server
    server=$PID
    "$BIN/mksessions" "$SERVER_PORT" "$N" 32 "$BIN/repoll-sessions.txt" >"$LOGS/mksessions.log" \
        || die "creating sessions failed: $(cat "$LOGS/mksessions.log")"
    "$BIN/repoll" "$SERVER_PORT" "$BIN/repoll-sessions.txt" "$N" "$server" >"$LOGS/repoll.log" 2>&1 \
        || die "the re-poll client failed: $(tail -3 "$LOGS/repoll.log")"
    stop "$server"
    note "run $rep: $(grep '^repoll' "$LOGS/repoll.log")"
    line=$(grep '^RESULT' "$LOGS/repoll.log")
    firsts+=" $(field first_kib "$line")"
    seconds+=" $(field second_kib "$line")"
done
first=$(median $firsts)
second=$(median $seconds)
note "first park: $first KiB per parked poll (runs:$firsts); second park: runs:$seconds"
record "2 long-poll" "long-poll, $N sessions, polling again: RSS KiB per parked poll" "$second" "" "" \
    "<=8 KiB" "$(verdict "$second <= 8")"
