"""Load and soak test for a running remvvm-server (scripts/soak starts the server and calls this).

Loopback only, standard library only, every loop bounded by the deadline. Threads, each on its own
keep-alive connection:

- dispatchers own sessions and POST `counter/increase` (single, batches, with `If-Match`, and with an
  `Idempotency-Key` sent twice, which must apply once), counting what was acknowledged;
- pollers follow those sessions by long-poll, checking that every answer starts where the last ended;
- streamers follow them by Server-Sent Events for a few seconds at a time, with the same check, and
  resume with `Last-Event-ID`;
- a churner creates sessions, starts an effect, reads and deletes them (then expects 404);
- a troublemaker sends bad requests, each of which must get its documented 4xx.

The time is split into rounds (three by default), each with fresh sessions. At the end of a round every
dispatcher session must show exactly the acknowledged increments and the number of commits made; then its
sessions are deleted. RSS must stop growing: the allocator keeps freed memory for reuse, so it does not fall back to
the start, and a round now and then adds some as another thread's arena grows, but a leak adds in every
round, so the run fails when every round after the first adds more than a tenth of what the first did.
Prints the figures; exits non-zero on any unexpected answer.
"""

import argparse
import http.client
import json
import random
import socket
import sys
import threading
import time
from collections import Counter, defaultdict

TIMEOUT = 15


class Stats:
    """Requests by kind, and the unexpected answers (a few kept as examples)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = Counter()
        self.errors = Counter()
        self.examples = []

    def count(self, kind, n=1):
        with self.lock:
            self.requests[kind] += n

    def error(self, kind, message):
        with self.lock:
            self.errors[kind] += 1
            if len(self.examples) < 20:
                self.examples.append(f"{kind}: {message}")


class Client:
    """One keep-alive connection; reconnects after an error."""

    def __init__(self, port):
        self.port = port
        self.connection = None

    def request(self, method, path, body=None, headers=None):
        headers = dict(headers or {})
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=TIMEOUT)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                content = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                return response.status, response, content
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A keep-alive connection the server closed while idle: retry once on a new one.
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


class Session:
    def __init__(self, created):
        self.id = created["id"]
        self.token = created["token"]
        self.version = created["version"]
        self.auth = {"Authorization": f"Bearer {self.token}"}
        self.path = f"/v1/sessions/{self.id}"
        self.acknowledged = 0  # counter increments the server acknowledged
        self.commits = 0  # versions committed by acknowledged dispatches


def version_number(version):
    return int(version.rsplit(".", 1)[1])


def create_session(client, stats):
    while True:
        status, response, body = client.request("POST", "/v1/sessions")
        stats.count("create")
        if status != 429:
            break
        # The address's session-creation budget: wait as told, as a well-behaved client does.
        stats.count("create/429")
        time.sleep(int(response.getheader("Retry-After", "1")))
    if status != 201:
        raise AssertionError(f"POST /v1/sessions answered {status}: {body[:200]!r}")
    return Session(json.loads(body))


def dispatcher(port, sessions, deadline, stats):
    client = Client(port)
    try:
        while time.monotonic() < deadline:
            session = random.choice(sessions)
            kind = random.choices(["single", "batch", "if-match", "idempotent"], [6, 2, 1, 1])[0]
            headers = dict(session.auth)
            if kind == "batch":
                size = random.randint(2, 5)
                body = [{"type": "counter/increase"}] * size
            else:
                size = 1
                body = {"type": "counter/increase"}
            if kind == "if-match":
                headers["If-Match"] = f'"{session.version}"'
            if kind == "idempotent":
                headers["Idempotency-Key"] = f"soak-{random.getrandbits(64):x}"
            status, _, content = client.request("POST", f"{session.path}/actions?views=counter", body, headers)
            stats.count(f"dispatch/{kind}")
            if status != 200:
                stats.error(f"dispatch/{kind}", f"{status} {content[:200]!r}")
                continue
            answer = json.loads(content)
            session.acknowledged += size
            session.commits += 1
            session.version = answer["version"]
            if kind == "idempotent":
                # The retry gets the stored answer and applies nothing.
                status, _, again = client.request("POST", f"{session.path}/actions?views=counter", body, headers)
                stats.count("dispatch/idempotent-retry")
                if status != 200 or json.loads(again)["version"] != answer["version"]:
                    stats.error("dispatch/idempotent-retry", f"{status} {again[:200]!r}")
    finally:
        client.close()


def apply_patch(document, patch):
    """Applies the RFC 6902 operations the server sends (add, remove, replace) to a view."""
    for operation in patch:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in operation["path"].split("/")[1:]]
        if not parts:
            document = operation.get("value")
            continue
        parent = document
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        op = operation["op"]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op == "add":
                parent.insert(index, operation["value"])
            elif op == "remove":
                del parent[index]
            elif op == "replace":
                parent[index] = operation["value"]
        else:
            if op in ("add", "replace"):
                parent[last] = operation["value"]
            elif op == "remove":
                del parent[last]
    return document


class Follower:
    """What one poller or streamer knows of a session's counter view, checked at every change."""

    def __init__(self, kind, stats):
        self.kind = kind
        self.stats = stats
        self.version = None
        self.counter = None

    def take(self, answer):
        """Checks that an answer continues where the last ended and the counter never goes back."""
        if "reset" in answer:
            # A client that fell behind the kept history gets the full views again, which is the contract;
            # a reset for any other reason means the server lost track of a cursor it gave out.
            if answer.get("reason") == "expired":
                self.stats.count(f"{self.kind}/reset-expired")
            else:
                self.stats.error(self.kind, f"unexpected reset: {answer.get('reason')}")
            self.version = answer["to"]
            self.counter = int(answer["views"]["counter"]["full"]["counter"])
            return
        if answer["from"] != self.version:
            self.stats.error(self.kind, f"answer from {answer['from']}, but the client is at {self.version}")
        change = answer["views"].get("counter")
        if change is not None:
            if "full" in change:
                view = change["full"]
            elif self.counter is None:
                self.stats.error(self.kind, "a patch for a view the client does not have")
                view = None
            else:
                view = apply_patch({"counter": str(self.counter)}, change["patch"])
            if view is not None:
                value = int(view["counter"])
                if self.counter is not None and value < self.counter:
                    self.stats.error(self.kind, f"the counter went back from {self.counter} to {value}")
                self.counter = value
        if version_number(answer["to"]) < version_number(answer["from"] or "x.0"):
            self.stats.error(self.kind, f"went back from {answer['from']} to {answer['to']}")
        self.version = answer["to"]


def poller(port, sessions, deadline, stats):
    client = Client(port)
    try:
        while time.monotonic() < deadline:
            session = random.choice(sessions)
            follower = Follower("poll", stats)
            status, _, content = client.request("GET", f"{session.path}/poll?views=counter", headers=session.auth)
            stats.count("poll")
            if status != 200:
                stats.error("poll", f"{status} {content[:200]!r}")
                continue
            follower.take(json.loads(content))
            for _ in range(random.randint(3, 20)):
                if time.monotonic() >= deadline:
                    break
                path = f"{session.path}/poll?views=counter&since={follower.version}&wait=2s"
                status, _, content = client.request("GET", path, headers=session.auth)
                stats.count("poll")
                if status != 200:
                    stats.error("poll", f"{status} {content[:200]!r}")
                    break
                follower.take(json.loads(content))
    finally:
        client.close()


def read_events(response, follower, stats, until):
    """Reads events until `until`; returns the id of the last one."""
    last_id = None
    event = {}
    while time.monotonic() < until:
        try:
            line = response.readline()
        except socket.timeout:
            break
        if not line:
            break
        line = line.decode().rstrip("\r\n")
        if line == "":
            if "data" in event:
                stats.count("events/message")
                name = event.get("event", "message")
                data = json.loads(event["data"])
                if name == "snapshot":
                    follower.version = data["version"]
                    follower.counter = int(data["views"]["counter"]["counter"])
                elif name in ("patch", "reset"):
                    follower.take(data)
                elif name == "end":
                    break
                last_id = event.get("id", last_id)
            event = {}
        elif line.startswith(":"):
            stats.count("events/heartbeat")
        else:
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[field] = event.get(field, "") + value if field == "data" else value
    return last_id


def streamer(port, sessions, deadline, stats):
    while time.monotonic() < deadline:
        session = random.choice(sessions)
        follower = Follower("events", stats)
        last_id = None
        for _ in range(random.randint(1, 3)):
            if time.monotonic() >= deadline:
                break
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
            try:
                headers = dict(session.auth)
                if last_id is not None:
                    headers["Last-Event-ID"] = last_id
                connection.request("GET", f"{session.path}/events?views=counter", headers=headers)
                response = connection.getresponse()
                stats.count("events/stream")
                if response.status != 200:
                    stats.error("events", f"{response.status} {response.read()[:200]!r}")
                    break
                until = min(deadline, time.monotonic() + random.uniform(1, 4))
                last_id = read_events(response, follower, stats, until) or last_id
            finally:
                connection.close()


def churner(port, deadline, stats):
    client = Client(port)
    try:
        while time.monotonic() < deadline:
            session = create_session(client, stats)
            steps = [{"type": "counter/set", "payload": {"value": random.randint(-5, 5)}}, {"type": "quote/load"}]
            for action in steps[: random.randint(0, 2)]:
                status, _, content = client.request("POST", f"{session.path}/actions", action, session.auth)
                stats.count("churn/dispatch")
                if status != 200:
                    stats.error("churn/dispatch", f"{status} {content[:200]!r}")
            status, _, content = client.request("GET", f"{session.path}?views=quote,counter", headers=session.auth)
            stats.count("churn/read")
            if status != 200:
                stats.error("churn/read", f"{status} {content[:200]!r}")
            status, _, content = client.request("DELETE", session.path, headers=session.auth)
            stats.count("churn/delete")
            if status != 204:
                stats.error("churn/delete", f"{status} {content[:200]!r}")
            status, _, content = client.request("GET", session.path, headers=session.auth)
            stats.count("churn/read-deleted")
            if status != 404:
                stats.error("churn/read-deleted", f"{status} {content[:200]!r}")
    finally:
        client.close()


def troublemaker(port, sessions, max_body, deadline, stats):
    """Bad requests, each with the status the API documents for it."""
    client = Client(port)
    json_type = {"Content-Type": "application/json"}
    try:
        while time.monotonic() < deadline:
            session = random.choice(sessions)
            actions = f"{session.path}/actions"
            cases = [
                ("malformed-json", "POST", actions, b'{"type": ', {**session.auth, **json_type}, 400),
                ("unknown-action", "POST", actions, b'{"type":"no/such"}', {**session.auth, **json_type}, 422),
                ("bad-payload", "POST", actions, b'{"type":"counter/set","payload":{"value":"x"}}',
                 {**session.auth, **json_type}, 422),
                ("wrong-media-type", "POST", actions, b"{}", {**session.auth, "Content-Type": "text/plain"}, 415),
                ("wrong-token", "POST", actions, b'{"type":"counter/increase"}',
                 {"Authorization": "Bearer " + "0" * 32, **json_type}, 404),
                ("no-token", "GET", session.path, None, {}, 401),
                ("server-only-action", "POST", actions, b'{"type":"quote/loaded","payload":{"text":"forged"}}',
                 {**session.auth, **json_type}, 403),
                ("bad-since", "GET", f"{session.path}/poll?since=nonsense", None, session.auth, 400),
                ("bad-view", "GET", f"{session.path}?views=nope", None, session.auth, 400),
                ("bad-if-match", "POST", actions, b'{"type":"counter/increase"}',
                 {**session.auth, **json_type, "If-Match": "nonsense"}, 400),
                ("unknown-route", "GET", "/v1/nothing", None, {}, 404),
                ("wrong-method", "PUT", session.path, None, session.auth, 405),
                ("too-large", "POST", actions, b"[" + b" " * max_body + b"]", {**session.auth, **json_type}, 413),
            ]
            name, method, path, body, headers, expected = random.choice(cases)
            status, _, content = client.request(method, path, body, headers)
            stats.count(f"bad/{name}")
            if status != expected:
                stats.error(f"bad/{name}", f"{status}, not {expected}: {content[:200]!r}")
            if name == "too-large":
                client.close()  # the transport may close after refusing the body
            time.sleep(0.005)
    finally:
        client.close()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def run_round(arguments, seconds, stats, failures):
    """One round: fresh sessions under the whole mix for `seconds`, then checked and deleted.

    Returns (elapsed, sessions, corrupted, RSS peak, RSS with the sessions, RSS once they are gone, samples).
    """
    setup = Client(arguments.port)
    sessions = [create_session(setup, stats) for _ in range(arguments.sessions)]
    shares = [sessions[i::4] for i in range(4)]
    started = time.monotonic()
    deadline = started + seconds
    threads = [threading.Thread(target=dispatcher, args=(arguments.port, share, deadline, stats)) for share in shares]
    threads += [threading.Thread(target=poller, args=(arguments.port, sessions, deadline, stats)) for _ in range(4)]
    threads += [threading.Thread(target=streamer, args=(arguments.port, sessions, deadline, stats)) for _ in range(2)]
    threads.append(threading.Thread(target=churner, args=(arguments.port, deadline, stats)))
    threads.append(
        threading.Thread(target=troublemaker, args=(arguments.port, sessions, arguments.max_body, deadline, stats))
    )

    def guarded(target):
        def run(*args):
            try:
                target(*args)
            except Exception as error:  # a worker that dies is a failure, not a silent stop
                failures.append(f"{target.__name__}: {error!r}")

        return run

    for thread in threads:
        thread._target = guarded(thread._target)
        thread.daemon = True
        thread.start()
    rss_peak = rss_kib(arguments.pid)
    samples = []  # (seconds, KiB) every tenth of the round, to tell a plateau from a climb
    next_sample = started
    while any(thread.is_alive() for thread in threads):
        rss = rss_kib(arguments.pid)
        rss_peak = max(rss_peak, rss)
        if time.monotonic() >= next_sample:
            samples.append((time.monotonic() - started, rss))
            next_sample += max(seconds / 10, 1)
        time.sleep(0.5)
        if time.monotonic() > deadline + 60:
            failures.append("workers still running a minute after the deadline")
            break
    elapsed = time.monotonic() - started

    # Every acknowledged increment is in the counter, and every acknowledged dispatch made one commit.
    corrupted = 0
    for session in sessions:
        status, _, content = setup.request("GET", f"{session.path}?views=counter", headers=session.auth)
        answer = json.loads(content) if status == 200 else {}
        counter = int(answer.get("views", {}).get("counter", {}).get("counter", -1))
        commits = version_number(answer["version"]) if "version" in answer else -1
        if status != 200 or counter != session.acknowledged or commits != session.commits:
            corrupted += 1
            stats.error("verify", f"{session.id}: {status}, counter {counter} for {session.acknowledged} "
                                  f"acknowledged, version {commits} for {session.commits} commits")
    rss_loaded = rss_kib(arguments.pid)
    for session in sessions:
        status, _, _ = setup.request("DELETE", session.path, headers=session.auth)
        if status != 204:
            stats.error("verify", f"DELETE {session.id} answered {status}")
    setup.close()
    time.sleep(3)  # let the server's ticker expire what it holds
    return elapsed, sessions, corrupted, rss_peak, rss_loaded, rss_kib(arguments.pid), samples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True, help="the server's process id, for its RSS")
    parser.add_argument("--seconds", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=3, help="the time is split into this many rounds")
    parser.add_argument("--sessions", type=int, default=200, help="sessions the dispatchers own in each round")
    parser.add_argument("--max-body", type=int, default=1 << 20)
    arguments = parser.parse_args()

    stats = Stats()
    failures = []
    rss_start = rss_kib(arguments.pid)
    rounds = max(1, arguments.rounds)
    results = []
    for number in range(rounds):
        results.append(run_round(arguments, arguments.seconds / rounds, stats, failures))
        elapsed, sessions, corrupted, peak, loaded, after, samples = results[-1]
        acknowledged = sum(session.acknowledged for session in sessions)
        print(f"round {number + 1}: {elapsed:.0f}s, {acknowledged} increments acknowledged over {len(sessions)} "
              f"sessions, {corrupted} corrupted; RSS KiB peak {peak}, with the sessions {loaded}, after deleting "
              f"them {after}; over the round: " + ", ".join(f"{s:.0f}s {rss}" for s, rss in samples))
        if corrupted:
            failures.append(f"round {number + 1}: {corrupted} sessions do not show what was acknowledged")

    elapsed = sum(result[0] for result in results)
    total = sum(stats.requests.values())
    print(f"ran {elapsed:.0f}s in {rounds} rounds: {total} requests and events ({total / elapsed:.0f}/s)")
    for kind, count in sorted(stats.requests.items()):
        print(f"  {kind:28} {count:9}  errors {stats.errors.get(kind, 0)}")
    rss_peak = max(result[3] for result in results)
    after = [rss_start] + [result[5] for result in results]
    growth = [after[i + 1] - after[i] for i in range(rounds)]
    print(f"RSS KiB: start {rss_start}, peak {rss_peak}, after each round {', '.join(map(str, after[1:]))}; "
          f"added by each round {', '.join(map(str, growth))}")
    for example in stats.examples:
        print(f"  unexpected: {example}")
    failures += [f"{sum(stats.errors.values())} unexpected answers"] if stats.errors else []
    # The allocator keeps freed memory for reuse, so RSS does not fall back to the start once the sessions
    # are gone, and now and then a round adds some as another thread's arena grows. A leak adds in every round:
    # it fails when every round after the first adds more than a tenth of what the first did (and 4 MiB).
    if rounds > 2 and min(growth[1:]) > growth[0] / 10 + 4 * 1024:
        failures.append(f"RSS grows in every round: {', '.join(map(str, growth))} KiB")
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
