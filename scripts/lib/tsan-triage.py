"""Sorts ThreadSanitizer reports into the ones it cannot judge on Linux and real ones (scripts/sanitize thread).

Every shared mutable state in this project is behind `Synchronization.Mutex`. On Linux that mutex is a futex
word handled inside the Swift runtime's Synchronization library, which is not built with ThreadSanitizer: TSan
sees neither the lock nor the unlock, so it takes two accesses made under the same mutex, one after the other,
for a race. Such a report has a telling shape: each of its two accesses runs inside a `withLock` body, the only
kind of closure here with the signature `([sending] inout T) [throws(E)] -> sending R`, and both bodies lock the
same `T` (one location lives in one mutex, so the same T means the same mutex).

A report is explained (and counted, not shown) only when both of its access stacks have such a frame for the
same T. Anything else, an access outside every `withLock`, two different Ts, a lock-order inversion, a
use-after-free, is printed in full and fails the run. No report is suppressed inside TSan itself.

    python3 scripts/lib/tsan-triage.py LOGFILE...   (TSAN_OPTIONS=log_path=... writes one file per process)
"""

import re
import subprocess
import sys
from collections import Counter

WITH_LOCK_BODY = re.compile(r"closure #\d+ \((?:sending )?inout (.+?)\)(?: throws\(.+?\))? -> sending ")
ACCESS = re.compile(r"^  (Previous )?(read|write|atomic read|atomic write|modifying access|read-only access)", re.I)
FRAME = re.compile(r"^    #\d+ (\S+)")


def demangle(symbols):
    if not symbols:
        return {}
    result = subprocess.run(
        ["swift", "demangle", "--compact"], input="\n".join(symbols), capture_output=True, text=True, check=True
    )
    return dict(zip(symbols, result.stdout.splitlines()))


FATAL = re.compile(r"^==\d+==ERROR: ThreadSanitizer:")


def reports(text):
    """The reports of one log: each from its WARNING line to its SUMMARY line. A fatal error (a crash inside
    the sanitized process, such as a SEGV) ends the log and is one report of its own, from its ERROR line on."""
    current = None
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if FATAL.match(line):
            yield ["WARNING: ThreadSanitizer: fatal error (the process crashed)"] + lines[index : index + 60]
            return
        if line.startswith("WARNING: ThreadSanitizer:"):
            current = [line]
        elif current is not None:
            current.append(line)
            if line.startswith("SUMMARY: ThreadSanitizer:"):
                yield current
                current = None


def access_stacks(report):
    """The frames (mangled symbols) of the report's two memory accesses."""
    stacks = []
    frames = None
    for line in report[1:]:
        if ACCESS.match(line):
            frames = []
            stacks.append(frames)
        elif line.startswith("  ") and not line.startswith("    "):
            frames = None  # "Location is ...", "Mutex ... created at", "Thread T... created by"
        elif frames is not None:
            match = FRAME.match(line)
            if match:
                frames.append(match.group(1))
    return stacks


def locked_type(frames, names):
    for frame in frames:
        match = WITH_LOCK_BODY.search(names.get(frame, frame))
        if match:
            return match.group(1)
    return None


def main(paths):
    all_reports = []
    for path in paths:
        with open(path, errors="replace") as log:
            all_reports += list(reports(log.read()))
    symbols = sorted({frame for report in all_reports for stack in access_stacks(report) for frame in stack})
    names = demangle([symbol for symbol in symbols if symbol.startswith("$s")])
    explained = Counter()
    unexplained = []
    for report in all_reports:
        stacks = access_stacks(report)
        kind = report[0].split("ThreadSanitizer:", 1)[1].split("(")[0].strip()
        types = [locked_type(stack, names) for stack in stacks]
        if kind in ("data race", "Swift access race") and len(stacks) == 2 and types[0] and types[0] == types[1]:
            explained[types[0]] += 1
        else:
            unexplained.append(report)
    print(f"ThreadSanitizer: {len(all_reports)} reports in {len(paths)} logs")
    for locked, count in explained.most_common():
        print(f"  {count:4} between two withLock bodies of Mutex<{locked}> (invisible to TSan on Linux)")
    for report in unexplained:
        print("\n".join(report))
    print(f"{len(unexplained)} unexplained")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
