#!/usr/bin/env python3
"""Where the server's CPU goes, by stage: reads a `perf record -g` of remvvm-server and attributes each
sample to the first stage found on its stack (each list below is ordered innermost stage first), scaled to
microseconds per request (scenario 1's dispatch load) or per change (a fan-out over many sessions, where
each change is one dispatch and the answer of the poll it wakes).

usage: bench/breakdown.py perf.data MICROSECONDS_PER_REQUEST
       bench/breakdown.py --stages fanout --time START,END --sample-us US --count N perf.data
  --time START,END   only the samples in this window (perf's clock: record with `-k mono` to compare
                     with the fan-out client's `window:` line)
  --sample-us US     each sample stands for US µs of CPU (`perf record -e task-clock -c US*1000`); with
  --count N          the µs per unit are then samples x US / N (N requests or changes in the window)
"""
import argparse
import collections
import re
import subprocess
import sys

# (stage, a fragment of its mangled Swift symbol or C function), innermost first.
DISPATCH_STAGES = [
    ("decode the action", "ActionRegistryV13decodeActions"),
    ("store: middleware, reducers, views", "5StoreC8dispatch_5views"),
    ("answer body (view JSON)", "dispatchBody_"),
    ("view selection (?views=)", "viewSelection2of"),
    ("credentials", "CredentialsV"),
    ("session lookup", "SessionRegistryC4find"),
    ("routing", "RouteO4path"),
    ("answer headers", "versionedHeaders"),
    ("answer: respond and count", "ExchangeV12sendPrepared"),
    ("API, rest", "APIC6handle_9responder"),
    ("transport: response to libmicrohttpd", "ResponseSenderO4send"),
    ("transport: request completed", "mhdRequestCompleted"),
    ("transport: request start", "beginRequest_2on"),
    ("transport: request value, rest", "continueRequest_2on"),
    ("transport: access handler, rest", "mhdAccessHandler"),
    ("kernel: send (sendmsg)", "__libc_sendmsg"),
    ("kernel: receive (recv)", "__libc_recv"),
    ("kernel: epoll_wait", "epoll_wait"),
]

# One change of the fan-out over many sessions: a dispatch whose store wakes one parked poll inline, and
# that poll's answer, sent after libmicrohttpd resumed its connection.
FANOUT_STAGES = [
    ("poll's answer: patch, body, headers", "ChangeFeedV6answer"),
    ("poll's answer: respond and count", "ExchangeV12sendPrepared"),
    ("dispatch: decode the action", "ActionRegistryV13decodeActions"),
    ("dispatch: store (reducers, views, waking the poll)", "5StoreC8dispatch_5views"),
    ("dispatch: answer body (view JSON)", "dispatchBody_"),
    ("API, rest (routing, credentials, sessions)", "APIC6handle_9responder"),
    ("transport: responses to libmicrohttpd", "ResponseSenderO4send"),
    ("transport: request completed", "mhdRequestCompleted"),
    ("transport: request value, rest", "continueRequest_2on"),
    ("transport: access handler, rest", "mhdAccessHandler"),
    ("resume thread: connections handed back", "ResumeQueue"),
    ("kernel: page faults (first touch of memory)", "asm_exc_page_fault"),
    ("kernel: send (sendmsg)", "__libc_sendmsg"),
    ("kernel: held answers released (io_uring)", "io_uring_enter"),
    ("kernel: receive (recv)", "__libc_recv"),
    ("kernel: epoll_ctl (resumed sockets re-armed)", "epoll_ctl"),
    ("kernel: epoll_wait", "epoll_wait"),
    ("kernel: close and shutdown", "__x64_sys_close"),
]

STAGE_SETS = {"dispatch": DISPATCH_STAGES, "fanout": FANOUT_STAGES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data")
    parser.add_argument("per_request", nargs="?", type=float, help="server CPU µs per request")
    parser.add_argument("--stages", choices=sorted(STAGE_SETS), default="dispatch")
    parser.add_argument("--time", help="START,END in perf's clock")
    parser.add_argument("--sample-us", type=float)
    parser.add_argument("--count", type=int)
    args = parser.parse_args()
    if args.per_request is None and (args.sample_us is None or not args.count):
        parser.error("give MICROSECONDS_PER_REQUEST, or --sample-us and --count")

    command = ["perf", "script", "-i", args.data]
    if args.time:
        command += ["--time", args.time]
    script = subprocess.run(command, capture_output=True, text=True).stdout
    stages = STAGE_SETS[args.stages]
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    for block in script.split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2:
            continue
        total += 1
        stack = " ".join(lines[1:])
        stage = next((name for name, fragment in stages if fragment in stack), None)
        if stage is None:
            leaf = lines[1].strip().split(None, 1)
            library = re.search(r"\(([^)]*)\)\s*$", lines[1])
            where = library.group(1).rsplit("/", 1)[-1] if library else "?"
            stage = f"elsewhere: {where}" if len(leaf) > 1 else "elsewhere"
        counts[stage] += 1
    if total == 0:
        sys.exit("no samples" + (f" in the window {args.time}" if args.time else ""))
    if args.per_request is not None:
        per_unit, unit = args.per_request, "request"
    else:
        per_unit, unit = total * args.sample_us / args.count, "change"
        print(f"{total} samples of {args.sample_us:g} µs: {per_unit:.1f} µs of server CPU per {unit} ({args.count})")
    print(f"{'stage':52} {'share':>6} {'µs/' + unit:>10}")
    for stage, count in counts.most_common():
        share = count / total
        if share >= 0.005:
            print(f"{stage:52} {100 * share:5.1f}% {per_unit * share:10.2f}")


if __name__ == "__main__":
    main()
