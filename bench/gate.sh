#!/usr/bin/env bash
# The replay gate's cost: `remvvm-server verify-upgrade --app-version 2` over a database that version 1 of the
# example app wrote, GATE_SESSIONS sessions (10000) of GATE_ACTIONS logged actions each (100), each with its
# snapshot. Prints the wall time, the CPU time, the peak memory and the rates, the median of GATE_REPEAT runs (3).
#   bench/gate.sh                      # the release server in .build/release (built if missing)
#   REMVVM_SERVER=path bench/gate.sh   # another build
# The data is written once by an opt-in test of ReMVVMPersistenceTests (GateBenchmarkData, a debug build) into
# bench/bin/gate-<sessions>x<actions>/, and reused.
set -euo pipefail
REPO_DIR=$(cd "$(dirname "$0")/.." && pwd)
cd "$REPO_DIR"
export PATH=/opt/swift/usr/bin:$PATH
SESSIONS=${GATE_SESSIONS:-10000}
ACTIONS=${GATE_ACTIONS:-100}
REPEAT=${GATE_REPEAT:-3}
DATA="$REPO_DIR/bench/bin/gate-${SESSIONS}x${ACTIONS}"
SERVER=${REMVVM_SERVER:-$REPO_DIR/.build/release/remvvm-server}

if [ ! -x "$SERVER" ]; then
    swift build -c release --product remvvm-server >/dev/null
fi
if [ ! -f "$DATA/sessions.sqlite" ]; then
    echo "writing $SESSIONS sessions of $ACTIONS actions with version 1 into $DATA ..."
    swift build --build-tests >/dev/null
    rm -rf "$DATA"
    REMVVM_GATE_BENCH_DIR="$DATA" REMVVM_GATE_BENCH_SESSIONS="$SESSIONS" REMVVM_GATE_BENCH_ACTIONS="$ACTIONS" \
        swift test --skip-build --filter GateBenchmarkData >"$REPO_DIR/bench/bin/gate-data.log" 2>&1 ||
        { tail -20 "$REPO_DIR/bench/bin/gate-data.log"; exit 1; }
fi
echo "database: $(du -h "$DATA/sessions.sqlite" | cut -f1), $SESSIONS sessions x $ACTIONS actions"

walls=() cpus=() rss=()
for run in $(seq "$REPEAT"); do
    out=$(mktemp)
    /usr/bin/time -f '%e %U %S %M' -o "$out.time" "$SERVER" verify-upgrade --app-version 2 \
        --sqlite-file "$DATA/sessions.sqlite" --json >"$out"
    read -r wall user sys kb <"$out.time"
    grep -q '"passed":true' "$out" || { cat "$out"; exit 1; }
    echo "run $run: ${wall} s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') s CPU, $((kb / 1024)) MiB peak; $(cat "$out")"
    walls+=("$wall") cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')") rss+=("$((kb / 1024))")
    rm -f "$out" "$out.time"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
wall=$(median "${walls[@]}")
echo "median: $wall s wall, $(median "${cpus[@]}") s CPU, $(median "${rss[@]}") MiB peak:" \
    "$(awk -v n="$SESSIONS" -v w="$wall" 'BEGIN { printf "%.0f", n / w }') sessions/s," \
    "$(awk -v n="$((SESSIONS * ACTIONS))" -v w="$wall" 'BEGIN { printf "%.0f", n / w }') actions/s"
