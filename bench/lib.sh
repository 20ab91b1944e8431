# bench/lib.sh - shared by the benchmark scripts (sourced, not run).
# Builds the C floors and clients and the release server, installs missing tools, starts servers on
# 127.0.0.1 and kills every process it started when the script exits, and records results.
#
# Settings (environment):
#   BENCH_DURATION   seconds per wrk run (10)          BENCH_REPEAT     runs per measurement, median (3)
#   BENCH_FANOUT_N   parked long-polls / streams (10000) BENCH_SESSIONS_N idle sessions for scenario 4 (100000)
#   BENCH_FANOUT_REPEAT  runs per fan-out measurement, median (5): a fan-out is one short burst, the noisiest figure
#   BENCH_PORT       first of three ports: server, C floor, nginx (23480)
#   REMVVM_SERVER    a prebuilt server binary (else built in .build-bench with cross-module optimization)
#   BENCH_RESULTS    the results file the driver collects (bench/bin/results.tsv)
#   BENCH_NO_WAIT=1  do not wait for other swift builds to finish (for trying the scripts out)
#   BENCH_FANOUT_MODES  the long-poll fan-outs to run, "one many" (both) or either alone

set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(dirname "$BENCH_DIR")
BIN="$BENCH_DIR/bin"
LOGS="$BIN/logs"
mkdir -p "$BIN" "$LOGS"

BENCH_DURATION=${BENCH_DURATION:-10}
BENCH_REPEAT=${BENCH_REPEAT:-3}
BENCH_FANOUT_N=${BENCH_FANOUT_N:-10000}
BENCH_FANOUT_REPEAT=${BENCH_FANOUT_REPEAT:-5}
BENCH_SESSIONS_N=${BENCH_SESSIONS_N:-100000}
# below the ephemeral range (32768-60999), where 10,000 client sockets would collide with a listener
BENCH_PORT=${BENCH_PORT:-23480}
SERVER_PORT=$BENCH_PORT
FLOOR_PORT=$((BENCH_PORT + 1))
NGINX_PORT=$((BENCH_PORT + 2))
BENCH_RESULTS=${BENCH_RESULTS:-$BIN/results.tsv}
SCRATCH="$REPO_DIR/.build-bench"
# Worker threads of every server measured (ours, the C floors, nginx): one per CPU, the server's own default.
THREADS=${BENCH_THREADS:-$(nproc)}

# Parked connections need file descriptors: take all the hard limit allows (client and server are
# separate processes, each with its own limit).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

STARTED=()
cleanup() {
    local pid
    for pid in "${STARTED[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${STARTED[@]}"; do
        # bounded: a server that ignores SIGTERM for 10 s gets SIGKILL
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    STARTED=()
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
note() { printf '   %s\n' "$*"; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

# --- tools -----------------------------------------------------------------------------------------

APT_UPDATED=0
apt_install() {
    # apt_install PACKAGE...: installs with apt-get when root; returns 1 (with a message) otherwise.
    if [ "$(id -u)" != 0 ]; then
        say "bench: missing $*; install it with: sudo apt-get install $*" >&2
        return 1
    fi
    if [ "$APT_UPDATED" = 0 ]; then
        apt-get update -qq >/dev/null || true
        APT_UPDATED=1
    fi
    # Never let a package's post-install start a system service (nginx would take port 80).
    local guard=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        guard=/usr/sbin/policy-rc.d
    fi
    local status=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$LOGS/apt.log" 2>&1 || status=$?
    [ -n "$guard" ] && rm -f "$guard"
    [ "$status" = 0 ] || { say "bench: apt-get install $* failed (see $LOGS/apt.log)" >&2; return 1; }
}

need_tools() {
    command -v wrk >/dev/null || apt_install wrk || die "wrk is required"
    command -v gcc >/dev/null || apt_install gcc || die "gcc is required"
    command -v curl >/dev/null || apt_install curl || die "curl is required"
    pkg-config --exists libmicrohttpd 2>/dev/null || apt_install libmicrohttpd-dev pkg-config \
        || die "libmicrohttpd-dev is required"
    # remvvm-server links TCMalloc by its file name (Package.swift).
    [ "$(dpkg-query -W -f='${Status}' libtcmalloc-minimal4 2>/dev/null)" = "install ok installed" ] \
        || apt_install libtcmalloc-minimal4 \
        || die "libtcmalloc-minimal4 is required"
}

NCHAN_MODULE=/usr/lib/nginx/modules/ngx_nchan_module.so
# Succeeds when nginx with nchan is (or could be made) available; prints why not otherwise.
have_nchan() {
    if command -v nginx >/dev/null && [ -f "$NCHAN_MODULE" ]; then return 0; fi
    apt_install nginx libnginx-mod-nchan >/dev/null 2>&1 || true
    if command -v nginx >/dev/null && [ -f "$NCHAN_MODULE" ]; then return 0; fi
    say "skipped: nginx+nchan (not installed, and installing needs root: apt-get install nginx libnginx-mod-nchan)"
    return 1
}

build_c() {
    local cflags="-O2 -Wall -Wextra"
    local mhd
    mhd=$(pkg-config --cflags --libs libmicrohttpd)
    local src out
    for src in "$BENCH_DIR"/floor/*.c; do
        out="$BIN/$(basename "$src" .c)"
        # shellcheck disable=SC2086
        [ "$out" -nt "$src" ] || gcc $cflags -o "$out" "$src" $mhd -lpthread
    done
    for src in "$BENCH_DIR"/clients/*.c; do
        out="$BIN/$(basename "$src" .c)"
        # shellcheck disable=SC2086
        [ "$out" -nt "$src" ] && [ "$out" -nt "$BENCH_DIR/clients/benchnet.h" ] || gcc $cflags -o "$out" "$src"
    done
}

# Waits (at most 10 minutes) while the machine is busy with someone else's work: a swift build or test
# run, or less than 70% of the CPU idle over a second (we run nothing between measurements, so whatever
# uses the CPU then would share our two cores). BENCH_NO_WAIT=1 skips the wait (trying the scripts out).
busy_reason() {
    if pgrep -f 'swift-build|swift-test|swift-frontend|\.xctest' >/dev/null 2>&1; then
        echo "a swift build or test run"
        return
    fi
    local a b
    a=($(head -1 /proc/stat))
    sleep 1
    b=($(head -1 /proc/stat))
    # fields: user nice system idle iowait irq softirq steal
    awk -v u="$((b[1] + b[2] + b[3] + b[6] + b[7] + b[8] - a[1] - a[2] - a[3] - a[6] - a[7] - a[8]))" \
        -v i="$((b[4] + b[5] - a[4] - a[5]))" 'BEGIN { if (u + i > 0 && i / (u + i) < 0.7) printf "%.0f%% CPU in use by others", 100 * u / (u + i) }'
}
wait_for_idle_machine() {
    local waited=0 reason
    [ "${BENCH_NO_WAIT:-0}" = 1 ] && return 0
    reason=$(busy_reason)
    while [ -n "$reason" ] && [ "$waited" -lt 600 ]; do
        [ "$waited" = 0 ] && say "   (machine busy: $reason; waiting up to 10 minutes)"
        sleep 4
        waited=$((waited + 5))
        reason=$(busy_reason)
    done
    if [ -n "$reason" ]; then
        say "   WARNING: machine still busy ($reason); the figures below share the CPU with it"
    fi
    return 0
}

SERVER_BIN=""
# use_server [SERVER_BINARY]: SERVER_BIN is the given build, else the release build made here (build_server).
use_server() {
    if [ $# -ge 1 ]; then
        [ -x "$1" ] || die "$1 is not an executable server build"
        SERVER_BIN=$1
    else
        build_server
    fi
}

build_server() {
    local product=${1:-remvvm-server}
    if [ "$product" = remvvm-server ] && [ -n "${REMVVM_SERVER:-}" ]; then
        SERVER_BIN=$REMVVM_SERVER
        return
    fi
    # The Dockerfile's build: release, cross-module optimization, the Swift runtime linked statically.
    say "building $product (release, cross-module optimization, static Swift runtime, scratch path .build-bench)"
    (cd "$REPO_DIR" && swift build -c release -Xswiftc -cross-module-optimization --static-swift-stdlib \
        --product "$product" --scratch-path "$SCRATCH" >"$LOGS/build-$product.log" 2>&1) \
        || { tail -30 "$LOGS/build-$product.log" >&2; die "swift build of $product failed"; }
    [ "$product" = remvvm-server ] && SERVER_BIN="$SCRATCH/release/remvvm-server"
    return 0
}

# --- processes -------------------------------------------------------------------------------------

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_http PORT PATH: until GET answers 200 (at most 10 s)
wait_http() {
    local i
    for i in $(seq 100); do
        curl -sf -o /dev/null "http://127.0.0.1:$1$2" && return 0
        sleep 0.1
    done
    die "nothing answered on 127.0.0.1:$1$2 within 10 s"
}

# start NAME PORT HEALTH_PATH COMMAND...: runs COMMAND in the background (log in bench/bin/logs/NAME.log),
# waits until it answers, and sets PID.
PID=""
start() {
    local name=$1 port=$2 health=$3
    shift 3
    port_free "$port" || die "127.0.0.1:$port is in use (set BENCH_PORT to another base port)"
    "$@" >"$LOGS/$name.log" 2>&1 &
    PID=$!
    STARTED+=("$PID")
    wait_http "$port" "$health"
}

# forget PID: a process that has ended is no longer cleanup's business.
forget() {
    local kept=() i
    for i in "${STARTED[@]}"; do [ "$i" = "$1" ] || kept+=("$i"); done
    STARTED=("${kept[@]+"${kept[@]}"}")
}

# stop PID: SIGTERM, bounded wait, SIGKILL.
stop() {
    local pid=$1 i
    kill "$pid" 2>/dev/null || true
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    forget "$pid"
}

# server_has FLAG: whether remvvm-server --help lists FLAG
# grep reads the whole help (not -q): a grep that stops at the first match would cut the server off with
# SIGPIPE, and under pipefail the pipeline would then say the flag is missing.
server_has() { "$SERVER_BIN" --help 2>&1 | grep -- "$1" >/dev/null; }

# start_server [FLAG...]: a fresh server. Limits are raised for the benchmark only (10,000 parked requests
# on one session, 100,000+ sessions). Sessions live in memory (--durability off) unless the caller passes
# --durability itself; the data directory, if any, is a fresh one under bench/bin.
DATA_DIR="$BIN/data"
start_server() {
    local durable=()
    if server_has --durability; then
        rm -rf "$DATA_DIR"
        durable=(--data-dir "$DATA_DIR")
        case " $* " in *" --durability "*) ;; *) durable+=(--durability off) ;; esac
    fi
    # Every benchmark client is on 127.0.0.1: no session-creation budget per address.
    local budget=()
    if server_has --session-creation-burst; then budget=(--session-creation-burst 0); fi
    start remvvm-server "$SERVER_PORT" /healthz "$SERVER_BIN" --host 127.0.0.1 --port "$SERVER_PORT" \
        --public-dir "$REPO_DIR/public" --threads "$THREADS" --connection-limit 19000 --connections-per-client 0 \
        --max-polls-per-session 20000 --max-streams-per-session 20000 \
        --max-sessions $((BENCH_SESSIONS_N + 50000)) --log-level warning "${durable[@]}" "${budget[@]}" "$@"
}

NGINX_PREFIX=""
start_nchan() {
    NGINX_PREFIX=$(mktemp -d "$BIN/nginx.XXXXXX")
    sed -e "s|@PREFIX@|$NGINX_PREFIX|g; s|@PORT@|$NGINX_PORT|g; s|@MODULE@|$NCHAN_MODULE|g" \
        "$BENCH_DIR/nginx/nchan.conf.in" >"$NGINX_PREFIX/nginx.conf"
    start nginx "$NGINX_PORT" /healthz nginx -p "$NGINX_PREFIX" -c "$NGINX_PREFIX/nginx.conf" -e "$NGINX_PREFIX/error.log"
}

# The master and its workers, for RSS and CPU sampling.
nginx_pids() { printf '%s' "$1"; pgrep -P "$1" | while read -r w; do printf ',%s' "$w"; done; }

stop_nchan() {
    stop "$1"
    rm -rf "$NGINX_PREFIX"
}

# start_fanout_target TARGET PROTO COUNT SESSIONS_FILE: starts TARGET (ours, floor, floor-tuned: the C floor
# set up as ours, see bench/floor/floor_fanout.c, or nchan) for a fan-out of PROTO (poll or sse) over COUNT
# sessions, and writes those sessions to SESSIONS_FILE for bench/bin/fanout. Sets FANOUT_PIDS (the
# processes to sample, the main one first), FANOUT_PORT and FANOUT_READY (the client's options that tell it
# when every subscriber is parked).
FANOUT_PIDS="" FANOUT_PORT="" FANOUT_READY=()
start_fanout_target() {
    local target=$1 proto=$2 count=$3 sessions=$4 gauge
    case $target in
        ours)
            start_server
            FANOUT_PIDS=$PID FANOUT_PORT=$SERVER_PORT
            "$BIN/mksessions" "$SERVER_PORT" "$count" 32 "$sessions" >"$LOGS/mksessions.log" \
                || die "creating sessions failed: $(cat "$LOGS/mksessions.log")"
            gauge=remvvm_parked_polls
            [ "$proto" = sse ] && gauge=remvvm_event_streams
            FANOUT_READY=(--ready /metrics "$gauge")
            ;;
        floor | floor-tuned)
            local tuned=()
            [ "$target" = floor-tuned ] && tuned=(tuned)
            start floor_fanout "$FLOOR_PORT" /healthz "$BIN/floor_fanout" "$FLOOR_PORT" "$THREADS" 19000 "${tuned[@]}"
            FANOUT_PIDS=$PID FANOUT_PORT=$FLOOR_PORT
            "$BIN/mksessions" --fake f "$count" "$sessions"
            FANOUT_READY=(--ready /count waiting)
            ;;
        nchan)
            start_nchan
            FANOUT_PIDS=$(nginx_pids "$PID") FANOUT_PORT=$NGINX_PORT
            "$BIN/mksessions" --fake n "$count" "$sessions"
            FANOUT_READY=(--ready /nchan_status "subscribers:" --sse-ready ": hi")
            ;;
        *) die "unknown fan-out target $target" ;;
    esac
}

# stop_fanout_target TARGET: stops what start_fanout_target started.
stop_fanout_target() {
    if [ "$1" = nchan ]; then stop_nchan "${FANOUT_PIDS%%,*}"; else stop "${FANOUT_PIDS%%,*}"; fi
}

# recorded_fanout TARGET SESSIONS LOG PERF_ARGS...: one long-poll on each of BENCH_FANOUT_N sessions against
# TARGET (started and stopped here), with `perf record PERF_ARGS` on TARGET's processes throughout; the client's
# output, with its window line, goes to LOG.
recorded_fanout() {
    local target=$1 sessions=$2 log=$3 perf_pid
    shift 3
    start_fanout_target "$target" poll "$BENCH_FANOUT_N" "$sessions"
    perf record -q "$@" -p "$FANOUT_PIDS" >/dev/null 2>&1 &
    perf_pid=$!
    STARTED+=("$perf_pid")
    "$BIN/fanout" poll "$FANOUT_PORT" "$sessions" "$BENCH_FANOUT_N" many --pids "$FANOUT_PIDS" \
        "${FANOUT_READY[@]}" >"$log" 2>&1 || true
    kill -INT "$perf_pid"
    wait "$perf_pid" 2>/dev/null || true
    forget "$perf_pid"
    stop_fanout_target "$target"
}

# cpu_ticks PID: user+system CPU ticks of a process, all threads
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# run_wrk PORT SESSIONS_FILE SERVER_PID: the dispatch load of scenario 1 (2 threads, 64 connections); prints
# wrk's RESULT line plus the server's CPU time per request (cpu_us=).
run_wrk() {
    local t0 t1
    t0=$(cpu_ticks "$3")
    wrk -t2 -c64 -d"${BENCH_DURATION}s" --timeout 5s -s "$BENCH_DIR/wrk/dispatch.lua" \
        "http://127.0.0.1:$1" -- "$2" 2 >"$LOGS/wrk.log" 2>&1 || { cat "$LOGS/wrk.log" >&2; die "wrk failed"; }
    t1=$(cpu_ticks "$3")
    local line
    line=$(grep '^RESULT' "$LOGS/wrk.log")
    printf '%s cpu_us=%s\n' "$line" "$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="$(field requests "$line")" \
        'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')"
}

# --- figures ---------------------------------------------------------------------------------------

# median of the arguments (numbers)
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'; }

# field KEY LINE: the value of key=value in a RESULT line
field() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p" | head -1; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'; }

# verdict CONDITION_AS_AWK_EXPRESSION: PASS or MISS
verdict() { awk "BEGIN { print (($1) ? \"PASS\" : \"MISS\") }"; }

# record SCENARIO METRIC OURS FLOOR RATIO TARGET VERDICT: one row of the results table
record() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$BENCH_RESULTS"
    printf '   %-52s ours %-12s vs %-12s ratio %-6s %s %s\n' "$2" "$3" "${4:--}" "${5:--}" "$7" "${6:+($6)}"
}
