#!/usr/bin/env bash
# The benchmark driver behind `make bench` (and `make bench-quick`): builds the release server, the
# in-process benchmark, the C floors and clients, runs every scenario, and prints one table with the
# server's figures, the floor's from the same run, their ratio and PASS/MISS against the targets. The
# table is also written to bench/bin/results.md (the source of BENCHMARKS.md's table).
# usage: bench/run.sh [dispatch] [poll] [repoll] [sse] [sessions] [inprocess] [durability] [postgres] [cluster] [topics] [storm] [client]   (default: all)
source "$(dirname "$0")/lib.sh"

scenarios=${*:-dispatch poll repoll sse sessions inprocess durability postgres cluster topics storm client}
need_tools
build_c
build_server
build_server remvvm-bench
export REMVVM_SERVER=$SERVER_BIN BENCH_RESULTS
: >"$BENCH_RESULTS"

mhd=$(pkg-config --modversion libmicrohttpd)
swiftv=$(swift --version 2>&1 | head -1)
commit=$(git -C "$REPO_DIR" describe --always --dirty 2>/dev/null || echo unknown)
machine="$(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), Linux $(uname -r), libmicrohttpd $mhd, $swiftv"
say "ReMVVM Server benchmarks - $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
say "machine: $machine"
say "settings: wrk ${BENCH_DURATION}s x $BENCH_REPEAT runs (medians), fan-out N=$BENCH_FANOUT_N x $BENCH_FANOUT_REPEAT runs, sessions N=$BENCH_SESSIONS_N"
say ""

for s in $scenarios; do
    case $s in
        dispatch) cmd=("$BENCH_DIR/dispatch.sh") ;;
        poll) cmd=("$BENCH_DIR/fanout.sh" poll) ;;
        repoll) cmd=("$BENCH_DIR/repoll.sh") ;;
        sse) cmd=("$BENCH_DIR/fanout.sh" sse) ;;
        sessions) cmd=("$BENCH_DIR/sessions.sh") ;;
        inprocess) cmd=("$BENCH_DIR/inprocess.sh") ;;
        durability) cmd=("$BENCH_DIR/durability.sh") ;;
        postgres) cmd=("$BENCH_DIR/postgres.sh") ;;
        cluster) cmd=("$BENCH_DIR/cluster.sh") ;;
        topics) cmd=("$BENCH_DIR/topics.sh") ;;
        storm) cmd=("$BENCH_DIR/storm.sh") ;;
        client) cmd=("$BENCH_DIR/client.sh") ;;
        *) die "unknown scenario $s" ;;
    esac
    # a failing scenario is reported in the table; the others still run
    "${cmd[@]}" || record "$s" "scenario failed (exit $?), see the output above" "-" "" "" "" "FAIL"
    say ""
done

{
    echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit; machine: $machine."
    echo "Settings: wrk ${BENCH_DURATION}s x $BENCH_REPEAT runs (medians), fan-out N=$BENCH_FANOUT_N x $BENCH_FANOUT_REPEAT runs, sessions N=$BENCH_SESSIONS_N."
    echo
    echo "| scenario | measure | remvvm-server | floor / reference | ratio | target | result |"
    echo "| --- | --- | ---: | ---: | ---: | --- | --- |"
    awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, ($4 == "" ? "-" : $4), ($5 == "" ? "-" : $5), $6, $7 }' "$BENCH_RESULTS"
} >"$BIN/results.md"
say "== summary (also in bench/bin/results.md)"
awk -F'\t' '{ printf "%-13s %-48s %-14s %-14s %-6s %-24s %s\n", $1, $2, $3, ($4 == "" ? "-" : $4), ($5 == "" ? "-" : $5), $6, $7 }' "$BENCH_RESULTS"
