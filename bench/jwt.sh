#!/usr/bin/env bash
# The cost of the example's sign-in on dispatch (scenario 1a: wrk, 64 connections over 64 sessions), one build,
# three servers in turns: no sign-in; JWTs checked at session creation only (--jwt-key-file); and a JWT (HS256)
# verified on every request (--jwt-every-request, the session token in the cookie). Medians of BENCH_REPEAT
# rounds, and each against the first.
# usage: bench/jwt.sh BINARY
source "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] && [ -x "$1" ] || die "usage: bench/jwt.sh BINARY (a remvvm-server build)"
SERVER_BIN=$1
need_tools
build_c

secret="$BIN/jwt-secret.txt"
jwt="$BIN/jwt.txt"
printf 'a benchmark secret of at least thirty-two bytes\n' >"$secret"
# An HS256 token for subject "bench", valid for an hour.
python3 - "$secret" >"$jwt" <<'PY'
import base64, hashlib, hmac, json, sys, time
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
key = open(sys.argv[1]).read().strip().encode()
head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
body = b64(json.dumps({"sub": "bench", "exp": int(time.time()) + 3600}).encode())
signature = b64(hmac.new(key, f"{head}.{body}".encode(), hashlib.sha256).digest())
print(f"{head}.{body}.{signature}")
PY

# measure MODE: one req/s figure (and server CPU µs per request) on a fresh server, in VALUE and CPU.
measure() {
    local flags=() script=dispatch.lua
    case $1 in
        off) ;;
        creation) flags=(--jwt-key-file "$secret") ;;
        every) flags=(--jwt-key-file "$secret" --jwt-every-request) script=dispatch-jwt.lua ;;
    esac
    start_server "${flags[@]}"
    local server=$PID sessions="$BIN/jwt-sessions.txt" line t0 t1
    : >"$sessions"
    for _ in $(seq 64); do
        curl -s -X POST -H "Authorization: Bearer $(cat "$jwt")" "http://127.0.0.1:$SERVER_PORT/v1/sessions" |
            python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["id"], s["token"])' >>"$sessions"
    done
    t0=$(cpu_ticks "$server")
    wrk -t2 -c64 -d"${BENCH_DURATION}s" --timeout 5s -s "$BENCH_DIR/wrk/$script" \
        "http://127.0.0.1:$SERVER_PORT" -- "$sessions" 2 "$jwt" >"$LOGS/wrk.log" 2>&1 || { cat "$LOGS/wrk.log" >&2; die "wrk failed"; }
    t1=$(cpu_ticks "$server")
    line=$(grep '^RESULT' "$LOGS/wrk.log")
    [ "$(field status_errors "$line")" = 0 ] || die "answers of 400 or more: $line"
    VALUE=$(field rps "$line")
    CPU=$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="$(field requests "$line")" \
        'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
    stop "$server"
}

say "== sign-in cost on dispatch: $SERVER_BIN, $BENCH_REPEAT rounds"
declare -A rps cpu
modes=(off creation every)
for round in $(seq "$BENCH_REPEAT"); do
    wait_for_idle_machine
    order=("${modes[@]}")
    [ $((round % 2)) -eq 0 ] && order=(every creation off)
    for mode in "${order[@]}"; do
        measure "$mode"
        note "round $round $mode: $VALUE req/s (server CPU $CPU µs per request)"
        rps[$mode]+=" $VALUE"
        cpu[$mode]+=" $CPU"
    done
done
for mode in "${modes[@]}"; do
    # shellcheck disable=SC2086
    note "$mode: median $(median ${rps[$mode]}) req/s (runs:${rps[$mode]}); server CPU median $(median ${cpu[$mode]}) µs per request; vs off $(ratio "$(median ${rps[$mode]})" "$(median ${rps[off]})")"
done
