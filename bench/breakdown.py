#!/usr/bin/env python3
"""Where one dispatch request's server CPU goes, by stage: reads a `perf record -g` of remvvm-server
under the dispatch load and attributes each sample to the first stage found on its stack (the list below
is ordered innermost stage first), scaled to microseconds per request.

usage: bench/breakdown.py perf.data MICROSECONDS_PER_REQUEST
"""
import collections
import re
import subprocess
import sys

# (stage, a fragment of its mangled Swift symbol or C function), innermost first.
STAGES = [
    ("decode the action", "ActionRegistryV13decodeActions"),
    ("store: middleware, reducers, views", "5StoreC8dispatch_5views"),
    ("answer body (view JSON)", "dispatchBody_"),
    ("view selection (?views=)", "viewSelection2of"),
    ("credentials", "CredentialsV"),
    ("session lookup", "SessionRegistryC4find"),
    ("routing", "RouteO4path"),
    ("answer headers", "dispatchHeaders"),
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


def main() -> None:
    data, per_request = sys.argv[1], float(sys.argv[2])
    script = subprocess.run(["perf", "script", "-i", data], capture_output=True, text=True).stdout
    counts: collections.Counter[str] = collections.Counter()
    total = 0
    for block in script.split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2:
            continue
        total += 1
        stack = " ".join(lines[1:])
        stage = next((name for name, fragment in STAGES if fragment in stack), None)
        if stage is None:
            leaf = lines[1].strip().split(None, 1)
            library = re.search(r"\(([^)]*)\)\s*$", lines[1])
            where = library.group(1).rsplit("/", 1)[-1] if library else "?"
            stage = f"elsewhere: {where}" if len(leaf) > 1 else "elsewhere"
        counts[stage] += 1
    if total == 0:
        sys.exit("no samples")
    print(f"{'stage':48} {'share':>6} {'µs/request':>10}")
    for stage, count in counts.most_common():
        share = count / total
        if share >= 0.005:
            print(f"{stage:48} {100 * share:5.1f}% {per_request * share:10.2f}")


if __name__ == "__main__":
    main()
