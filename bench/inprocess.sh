#!/usr/bin/env bash
# Scenario 5 - in-process dispatch: the store core alone, no HTTP (Sources/remvvm-bench, release build with
# cross-module optimization). Prints its table; the counter-store rows are checked against the targets.
source "$(dirname "$0")/lib.sh"

build_server remvvm-bench
say "== 5. in-process dispatch (remvvm-bench, 1,000,000 dispatches per round, best of 5)"
wait_for_idle_machine
"$SCRATCH/release/remvvm-bench" | tee "$LOGS/remvvm-bench.log" | sed 's/^/   /'
rate() { awk -v name="$1" 'index($0, name) == 1 { print $(NF - 1) }' "$LOGS/remvvm-bench.log"; }
zero=$(rate "counter store, 0 observers")
one=$(rate "counter store, 1 observers")
[ -n "$zero" ] && [ -n "$one" ] || die "remvvm-bench printed no counter-store rows"
record "5 in-process" "counter store, 0 observers: actions/s" "$zero" "" "" ">=2,000,000" "$(verdict "$zero >= 2000000")"
record "5 in-process" "counter store, 1 observer: actions/s" "$one" "" "" ">=1,500,000" "$(verdict "$one >= 1500000")"
