#!/usr/bin/env bash
# Instructions per dispatch under callgrind, which counts instructions rather than time: repeatable on a shared,
# busy machine where req/s are not. One worker thread, 64 sessions, wrk (1 thread, 8 connections) for 15 s with
# callgrind's instrumentation on (off during start-up and warm-up). Release binaries built with DWARF 5 need
# `strip --strip-debug` first (valgrind 3.19 cannot read their debug info).
# usage: bench/instructions.sh BINARY [off|every]
#   off    scenario 1a's dispatch, no sign-in
#   every  the example's sign-in on every request (--jwt-key-file --jwt-every-request): a JWT (HS256) per request,
#          the session token in the cookie
set -u
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
REPO_DIR=$(dirname "$BENCH_DIR")
bin=$1 mode=${2:-off}
dir=$(mktemp -d /tmp/remvvm-instructions.XXXXXX)
trap 'rm -rf "$dir"' EXIT
port=$((31300 + RANDOM % 500))
printf 'a benchmark secret of at least thirty-two bytes\n' >"$dir/secret.txt"
python3 - "$dir/secret.txt" >"$dir/jwt.txt" <<'PY'
import base64, hashlib, hmac, json, sys, time
def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
key = open(sys.argv[1]).read().strip().encode()
head = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
body = b64(json.dumps({"sub": "bench", "exp": int(time.time()) + 3600}).encode())
print(f"{head}.{body}.{b64(hmac.new(key, f'{head}.{body}'.encode(), hashlib.sha256).digest())}")
PY
flags=() script=dispatch.lua
[ "$mode" = every ] && flags=(--jwt-key-file "$dir/secret.txt" --jwt-every-request) script=dispatch-jwt.lua
# Every session comes from this one address: the per-address creation budget would refuse most of them.
"$bin" --help 2>&1 | grep -- --session-creation-burst >/dev/null && flags+=(--session-creation-burst 0)
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$dir/cg.out" "$bin" --host 127.0.0.1 \
    --port "$port" --public-dir "$REPO_DIR/public" --threads 1 --durability off --data-dir "$dir/data" \
    --log-level warning "${flags[@]}" >"$dir/server.log" 2>&1 &
pid=$!
for _ in $(seq 600); do curl -s "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
for _ in $(seq 64); do
    curl -s -X POST -H "Authorization: Bearer $(cat "$dir/jwt.txt")" "http://127.0.0.1:$port/v1/sessions" |
        python3 -c 'import json, sys; s = json.load(sys.stdin); print(s["id"], s["token"])'
done >"$dir/sessions.txt"
load() { wrk -t1 -c8 -d"$1" --timeout 10s -s "$BENCH_DIR/wrk/$script" "http://127.0.0.1:$port" -- "$dir/sessions.txt" 1 "$dir/jwt.txt"; }
load 3s >/dev/null 2>&1
callgrind_control -i on "$pid" >/dev/null
load 15s >"$dir/wrk.log" 2>&1
callgrind_control -i off "$pid" >/dev/null
callgrind_control -d "$pid" >/dev/null
kill "$pid"
wait "$pid" 2>/dev/null
requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' "$dir/wrk.log")
errors=$(sed -n 's/.*status_errors=\([0-9]*\).*/\1/p' "$dir/wrk.log")
total=$(cat "$dir"/cg.out* | sed -n 's/^totals: //p' | awk '{ s += $1 } END { print s }')
echo "RESULT mode=$mode requests=$requests status_errors=$errors instructions=$total" \
    "per_request=$(awk -v t="$total" -v n="$requests" 'BEGIN { printf "%.0f", t / n }')"
