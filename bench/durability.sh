#!/usr/bin/env bash
# Scenario 6 - durability cost: the dispatch load of scenario 1 (wrk, 64 sessions and 1 session) against a
# server with durable sessions (--durability full: a dispatch is answered once it is on disk) and the same
# server with sessions in memory (--durability off). The "floor" column is the in-memory server. Skipped,
# with a note, when the server has no --durability flag.
source "$(dirname "$0")/lib.sh"

need_tools
build_c
build_server
say "== 6. durability cost: dispatch with --durability full against --durability off"
if ! server_has --durability; then
    say "   not available: durability not implemented (remvvm-server --help has no --durability)"
    record "6 durability" "durability cost" "not available" "" "" "" "skip"
    exit 0
fi

declare -A rps p99
for rep in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    for mode in off full; do
        start_server --durability "$mode"
        server=$PID
        "$BIN/mksessions" "$SERVER_PORT" 64 8 "$BIN/sessions-64.txt" >/dev/null
        head -1 "$BIN/sessions-64.txt" >"$BIN/sessions-1.txt"
        for kind in many one; do
            file="$BIN/sessions-64.txt"
            [ "$kind" = one ] && file="$BIN/sessions-1.txt"
            line=$(run_wrk "$SERVER_PORT" "$file" "$server")
            note "run $rep durability=$mode $kind: $line"
            rps[$mode.$kind]+=" $(field rps "$line")"
            p99[$mode.$kind]+=" $(field p99_us "$line")"
        done
        stop "$server"
    done
done
note "on-disk size after the last run: $(du -sh "$DATA_DIR" 2>/dev/null | cut -f1)"

ms() { awk -v us="$1" 'BEGIN { printf "%.2f", us / 1000 }'; }
for kind in many one; do
    label="dispatch, 64 sessions, durable"
    [ "$kind" = one ] && label="dispatch, 1 session, durable"
    # shellcheck disable=SC2086
    {
        d=$(median ${rps[full.$kind]})
        m=$(median ${rps[off.$kind]})
        dp=$(median ${p99[full.$kind]})
        mp=$(median ${p99[off.$kind]})
    }
    record "6 durability" "$label: req/s (vs in memory)" "$d" "$m" "$(ratio "$d" "$m")" "" ""
    record "6 durability" "$label: p99 ms (vs in memory)" "$(ms "$dp")" "$(ms "$mp")" "$(ratio "$dp" "$mp")" "" ""
done
