#!/usr/bin/env python3
"""Cluster tests: three remvvm-server nodes on one PostgreSQL behind nginx, all started by
scripts/cluster on 127.0.0.1 in a directory of their own, driven over real HTTP.

    python3 Tests/cluster/cluster_test.py [kill9] [sigstop] [postgres] [rolling] [upgrade] [chat] [chatkill]
    (default: all seven)

REMVVM_SERVER_BIN names the server binary (default .build/debug/remvvm-server).
Each scenario starts its own cluster and stops it; a failure prints what was seen and the tails of the logs, and the
script exits 1 after running the others. Standard library only.

What the clients do is what a well-behaved client does: every dispatch carries an Idempotency-Key
and is retried with the same key and body on 503, 502 and connection errors until it is
acknowledged (bounded: 30 s per action); every acknowledged version is remembered. The checks are
the promises of issue 39: nothing acknowledged is lost, no key is applied twice, no version is
acknowledged twice, versions are gap-free in one epoch, cursors survive a move. And issue 40's: chat
members on different nodes hear each other, every message once, in one order, across a takeover.
"""

import collections
import glob
from http.client import HTTPConnection, HTTPException
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("REMVVM_SERVER_BIN", os.path.join(REPO, ".build/debug/remvvm-server"))
CLUSTER = os.path.join(REPO, "scripts/cluster")
RETRYABLE = {502, 503, 504}
ACTION = json.dumps({"type": "counter/increase"}).encode()


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


# --- HTTP ----------------------------------------------------------------------------------------------------


class Http:
    """One keep-alive connection to 127.0.0.1:port, reopened after any error."""

    def __init__(self, port, timeout=10.0):
        self.port = port
        self.timeout = timeout
        self.conn = None

    def request(self, method, path, body=None, headers=None, timeout=None):
        """(status, headers, body); raises OSError or HTTPException when the connection fails."""
        if self.conn is None:
            self.conn = HTTPConnection("127.0.0.1", self.port, timeout=timeout or self.timeout)
        try:
            self.conn.request(method, path, body=body, headers=headers or {})
            response = self.conn.getresponse()
            data = response.read()
            if response.getheader("Connection", "").lower() == "close":
                self.close()
            return response.status, response, data
        except (OSError, HTTPException):
            self.close()
            raise

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def retry_delay(response):
    """What Retry-After asks, at most 0.5 s, at least 20 ms."""
    try:
        return min(max(float(response.getheader("Retry-After", "0")), 0.02), 0.5)
    except (TypeError, ValueError):
        return 0.1


def version_parts(version):
    epoch, _, n = version.rpartition(".")
    return epoch, int(n)


class Session:
    """A session's id and token, and every version acknowledged for it, in order."""

    def __init__(self, sid, token, version):
        self.id = sid
        self.token = token
        self.epoch, created = version_parts(version)
        check(created == 0, f"a new session at version {version}, not .0")
        self.acked = []  # (monotonic time, version)
        self.statuses = collections.Counter()
        self.connection_errors = 0
        self.bare_replays = 0
        self.problems = []

    def headers(self, key=None):
        h = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        if key:
            h["Idempotency-Key"] = key
        return h

    def path(self, suffix=""):
        return f"/v1/sessions/{self.id}{suffix}"


def create_session(http, deadline_s=15.0):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            status, response, body = http.request("POST", "/v1/sessions")
        except (OSError, HTTPException):
            time.sleep(0.05)
            continue
        if status == 201:
            answer = json.loads(body)
            return Session(answer["id"], answer["token"], answer["version"])
        check(status in RETRYABLE, f"POST /v1/sessions answered {status}: {body[:300]!r}")
        time.sleep(retry_delay(response))
    raise Failure("no session created within 15 s")


def dispatch(http, session, key=None, deadline_s=30.0, stop=None):
    """Dispatches counter/increase with an Idempotency-Key until it is acknowledged; returns its version."""
    key = key or uuid.uuid4().hex
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            status, response, body = http.request(
                "POST", session.path("/actions?views=counter"), ACTION, session.headers(key))
        except (OSError, HTTPException):
            session.connection_errors += 1
            time.sleep(0.02)
            continue
        session.statuses[status] += 1
        if status == 200:
            answer = json.loads(body)
            version = answer["version"]
            session.acked.append((time.monotonic(), version))
            if answer.get("results") == []:
                # A key whose commit is durable but whose node died before storing the answer comes back
                # naming the committed version only (IdempotencyCache.restore): counted, not a failure.
                session.bare_replays += 1
            elif answer.get("results") != ["applied"]:
                session.problems.append(f"key {key}: results {answer.get('results')}")
            return version
        if status not in RETRYABLE:
            session.problems.append(f"dispatch with key {key} answered {status}: {body[:300]!r}")
            return None
        time.sleep(retry_delay(response))
    session.problems.append(f"dispatch with key {key} not acknowledged within {deadline_s:.0f} s")
    return None


def read_views(http, session, views, deadline_s=10.0):
    """A GET of the session's `views` (the parsed answer), retried on 503/502/connection errors, so it reads
    through a takeover."""
    deadline = time.monotonic() + deadline_s
    last = None
    while time.monotonic() < deadline:
        try:
            status, response, body = http.request("GET", session.path(f"?views={views}"), None, session.headers())
        except (OSError, HTTPException) as error:
            last = repr(error)
            time.sleep(0.05)
            continue
        if status == 200:
            return json.loads(body)
        last = f"{status} {body[:200]!r}"
        check(status in RETRYABLE, f"reading {views} of session {session.id} answered {last}")
        time.sleep(retry_delay(response))
    raise Failure(f"{views} of session {session.id} not readable within {deadline_s:.0f} s (last: {last})")


def read_session(http, session, deadline_s=10.0):
    """(version, counter) of a GET, retried through a takeover."""
    answer = read_views(http, session, "counter", deadline_s)
    return answer["version"], int(answer["views"]["counter"]["counter"])


def verify_exact(session, http):
    """Every acknowledged version once, gap-free from .1, in the creation's epoch; the stored state has
    exactly the acknowledged actions."""
    versions = [v for _, v in session.acked]
    epochs = {version_parts(v)[0] for v in versions}
    check(epochs <= {session.epoch}, f"session {session.id}: epochs {epochs}, created in {session.epoch}")
    numbers = [version_parts(v)[1] for v in versions]
    duplicates = [n for n, c in collections.Counter(numbers).items() if c > 1]
    check(not duplicates, f"session {session.id}: versions acknowledged twice: {duplicates[:10]}")
    check(sorted(numbers) == list(range(1, len(numbers) + 1)),
          f"session {session.id}: acknowledged versions not 1..{len(numbers)}: "
          f"missing {sorted(set(range(1, len(numbers) + 1)) - set(numbers))[:10]}, "
          f"beyond {[n for n in numbers if n > len(numbers)][:10]}")
    version, counter = read_session(http, session)
    check(version == f"{session.epoch}.{len(numbers)}",
          f"session {session.id}: reads {version} after {len(numbers)} acknowledged actions in {session.epoch}")
    check(counter == len(numbers),
          f"session {session.id}: counter {counter} after {len(numbers)} acknowledged actions "
          f"({'lost' if counter < len(numbers) else 'applied twice'})")


def attempt(problems, function, *args):
    """Runs a check, adding its failure to `problems` instead of stopping at the first."""
    try:
        function(*args)
    except Failure as failure:
        problems.append(str(failure))


def poll_once(http, session, since, wait="2s"):
    """One long-poll answer (status, json) with `since`, retried on 503/502/connection errors (10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            status, response, body = http.request(
                "GET", session.path(f"/poll?views=counter&since={since}&wait={wait}"), None, session.headers(),
                timeout=30)
        except (OSError, HTTPException):
            time.sleep(0.05)
            continue
        if status == 200:
            return json.loads(body)
        check(status in RETRYABLE, f"poll of {session.id} since {since} answered {status}: {body[:300]!r}")
        time.sleep(retry_delay(response))
    raise Failure(f"poll of {session.id} since {since} not answered within 10 s")


def check_change(session, since, answer):
    """A poll answer from `since` is a change (or a timeout), never a reset, and its view matches its version."""
    check(not answer.get("reset"), f"session {session.id}: cursor {since} got a reset: {answer}")
    check(answer.get("from") == since, f"session {session.id}: poll since {since} answered from {answer.get('from')}")
    epoch, n = version_parts(answer["to"])
    check(epoch == session.epoch, f"session {session.id}: poll moved to epoch {epoch} from {session.epoch}")
    view = answer["views"].get("counter")
    if view is not None and "full" in view:
        check(int(view["full"]["counter"]) == n,
              f"session {session.id}: version {answer['to']} shows counter {view['full']['counter']}")


# --- load ------------------------------------------------------------------------------------------------------


class Load:
    """One dispatching client and one long-polling client per session, through `port`, until stopped."""

    def __init__(self, port, sessions):
        self.port = port
        self.sessions = sessions
        self.stop = threading.Event()
        self.poll_problems = []
        self.poll_changes = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.dispatcher, args=(s,)) for s in sessions]
        self.threads += [threading.Thread(target=self.poller, args=(s,)) for s in sessions]

    def start(self):
        for t in self.threads:
            t.start()
        return self

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=60)
        check(not any(t.is_alive() for t in self.threads), "a load thread did not end within 60 s")

    def dispatcher(self, session):
        http = Http(self.port)
        while not self.stop.is_set():
            if dispatch(http, session) is None:
                return
        http.close()

    def poller(self, session):
        """Follows the counter view with its cursor: every answer must continue it, never reset it."""
        http = Http(self.port, timeout=30)
        cursor = f"{session.epoch}.0"
        while not self.stop.is_set():
            try:
                answer = poll_once(http, session, cursor, wait="1s")
                check_change(session, cursor, answer)
            except Failure as failure:
                with self.lock:
                    self.poll_problems.append(str(failure))
                return
            if answer["views"]:
                with self.lock:
                    self.poll_changes += 1
            cursor = answer["to"]
        http.close()

    def statuses(self):
        total = collections.Counter()
        for s in self.sessions:
            total.update(s.statuses)
        return dict(sorted(total.items())), sum(s.connection_errors for s in self.sessions)

    def verify(self, http):
        """Every check, all reported together: which promises broke, and how often."""
        problems = [p for s in self.sessions for p in s.problems] + self.poll_problems
        for s in self.sessions:
            try:
                verify_exact(s, http)
            except Failure as failure:
                problems.append(str(failure))
        check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))


# --- the cluster -----------------------------------------------------------------------------------------------


def free_port_block(count=5):
    """A base port with `count` free ports from it, below the ephemeral range."""
    for _ in range(200):
        base = random.randrange(20000, 32000)
        sockets = []
        try:
            for p in range(base, base + count):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                sockets.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise Failure("no free block of ports")


class Cluster:
    def __init__(self, node_flags="--log-level info"):
        self.dir = tempfile.mkdtemp(prefix="remvvm-cluster-test.")
        os.chmod(self.dir, 0o755)  # PostgreSQL runs as the postgres user and must reach its folder
        self.port = free_port_block()
        self.env = dict(os.environ, REMVVM_SERVER=BINARY, CLUSTER_NODE_FLAGS=node_flags)
        self.run("start")

    def run(self, *args, env=None):
        environment = dict(self.env, **(env or {}))
        result = subprocess.run([CLUSTER, "--dir", self.dir, "--port", str(self.port), *args], env=environment,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
        check(result.returncode == 0, f"scripts/cluster {' '.join(args)} failed:\n{result.stdout}")
        return result.stdout

    def node_port(self, n):
        return self.port + n

    def sql(self, query):
        """One value of `query` on the cluster's PostgreSQL, as text."""
        psql = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))[-1]
        result = subprocess.run([psql, "-h", "127.0.0.1", "-p", str(self.port + 4), "-U", "postgres", "-d", "remvvm",
                                 "-Atc", query], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        check(result.returncode == 0, f"psql {query!r} failed: {result.stdout}")
        return result.stdout.strip()

    def pid(self, n):
        with open(os.path.join(self.dir, f"node-{n}.pid")) as f:
            return int(f.read())

    def signal(self, n, sig):
        os.kill(self.pid(n), sig)

    def kill9(self, n):
        pid = self.pid(n)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}") and not _zombie(pid):
            time.sleep(0.01)

    def owners(self):
        """The node that last answered each session through nginx (from nginx's access log)."""
        owners = {}
        ports = {f"127.0.0.1:{self.node_port(n)}": n for n in (1, 2, 3)}
        with open(os.path.join(self.dir, "nginx/access.log")) as f:
            for line in f:
                fields = line.split(" ", 6)
                if len(fields) < 6 or fields[3] != "200" or not fields[2].startswith("/v1/sessions/"):
                    continue
                upstream = fields[4].split(",")[-1].strip()
                if upstream in ports:
                    owners[fields[2].split("/")[3]] = ports[upstream]
        return owners

    def keep_logs(self, name):
        """Copies the logs to a folder that outlives the cluster; returns it."""
        kept = os.path.join(tempfile.gettempdir(), "remvvm-cluster-test-logs", name)
        shutil.rmtree(kept, ignore_errors=True)
        os.makedirs(kept)
        for log in ("node-1.log", "node-2.log", "node-3.log", "nginx/error.log", "nginx/access.log",
                    "postgres/server.log"):
            path = os.path.join(self.dir, log)
            if os.path.exists(path):
                shutil.copy(path, os.path.join(kept, log.replace("/", "-")))
        return kept

    def logs(self):
        out = []
        for name in ("node-1.log", "node-2.log", "node-3.log", "nginx/error.log", "postgres/server.log"):
            path = os.path.join(self.dir, name)
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    lines = f.readlines()[-8:]
                out.append(f"--- {name} (last {len(lines)} lines)\n" + "".join(lines))
        return "\n".join(out)

    def close(self):
        for n in (1, 2, 3):  # a paused node would not end on SIGTERM
            try:
                self.signal(n, signal.SIGCONT)
            except (OSError, ValueError):
                pass
        try:
            self.run("clean")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


# --- scenarios -------------------------------------------------------------------------------------------------


def scenario_kill9(cluster):
    """kill -9 of the node holding the most sessions, under load through nginx; then it comes back."""
    front = Http(cluster.port)
    sessions = [create_session(front) for _ in range(12)]
    load = Load(cluster.port, sessions).start()
    time.sleep(3)
    owners = cluster.owners()
    victim = collections.Counter(owners.get(s.id) for s in sessions if owners.get(s.id)).most_common(1)[0][0]
    moved = [s for s in sessions if owners.get(s.id) == victim]
    cursors = {s.id: s.acked[-1][1] for s in moved if s.acked}
    killed_at = time.monotonic()
    cluster.kill9(victim)
    # The pre-kill cursors at once, while the load goes on: within the 128 versions a node keeps views of
    # (StoreConfiguration.historyLimit), so only a move could turn them into a reset.
    problems = []
    for s in moved:
        since = cursors.get(s.id)
        if since:
            attempt(problems, lambda: check_change(s, since, poll_once(front, s, since)))
    cursors_checked_in = time.monotonic() - killed_at
    time.sleep(4)
    # Back again: its sessions return to it on the ring, taken over a second time.
    cluster.run("start", f"node-{victim}")
    time.sleep(3)
    load.finish()
    statuses, connection_errors = load.statuses()
    attempt(problems, load.verify, front)
    gaps = []
    for s in moved:
        after = [t for t, _ in s.acked if t > killed_at]
        if not after:
            problems.append(f"session {s.id} (on node-{victim}) acknowledged nothing after the kill")
            continue
        gaps.append(after[0] - killed_at)
        if gaps[-1] > 2.0:
            problems.append(f"session {s.id} answered again {gaps[-1]:.2f} s after the kill (at most 2 s)")
    check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))
    gaps = gaps or [0.0]
    acked = sum(len(s.acked) for s in sessions)
    return (f"{acked} actions acknowledged on {len(sessions)} sessions, all present once; node-{victim} killed "
            f"holding {len(moved)}: answering again after at most {max(gaps) * 1000:.0f} ms; "
            f"{len(cursors)} pre-kill cursors continued (polled within {cursors_checked_in * 1000:.0f} ms of the kill); {load.poll_changes} poll changes, no reset; "
            f"statuses {statuses}, {connection_errors} connection errors (retried); "
            f"{sum(s.bare_replays for s in sessions)} replays naming only the version")


def scenario_sigstop(cluster):
    """A paused node whose session another node takes over must not acknowledge a version after it resumes."""
    node1, node2 = Http(cluster.node_port(1)), Http(cluster.node_port(2))
    session = create_session(node1)
    for _ in range(5):
        check(dispatch(node1, session, deadline_s=10), f"node-1 did not acknowledge: {session.problems}")
    cluster.signal(1, signal.SIGSTOP)
    # A dispatch sent to the paused node: the kernel accepts it; node-1 reads it only when resumed.
    stale_key = uuid.uuid4().hex
    stale = {}

    def send_to_paused_node():
        http = Http(cluster.node_port(1), timeout=30)
        try:
            status, response, body = http.request(
                "POST", session.path("/actions?views=counter"), ACTION, session.headers(stale_key))
            stale["answer"] = (status, body)
            if status == 200:
                session.acked.append((time.monotonic(), json.loads(body)["version"]))
        except (OSError, HTTPException) as error:
            stale["answer"] = (None, repr(error))

    paused = threading.Thread(target=send_to_paused_node)
    paused.start()
    time.sleep(0.3)
    takeover_started = time.monotonic()
    check(dispatch(node2, session, deadline_s=10), f"node-2 did not take the session over: {session.problems}")
    takeover = time.monotonic() - takeover_started
    for _ in range(4):
        check(dispatch(node2, session, deadline_s=10), f"node-2 did not acknowledge: {session.problems}")
    cluster.signal(1, signal.SIGCONT)
    paused.join(timeout=30)
    check(not paused.is_alive(), "node-1 did not answer the dispatch it received while paused, 30 s after SIGCONT")
    stale_status = stale["answer"][0]
    problems = []
    # A 200 is allowed only with a version nobody else acknowledged: verify_exact checks that below.
    if stale_status != 200:
        if not (stale_status in RETRYABLE or stale_status is None):
            problems.append(f"node-1's answer after resuming: {stale_status} {stale['answer'][1][:300]!r}")
        # Its client retries with the same key, at the node it chose: applied once.
        if not dispatch(node1, session, key=stale_key, deadline_s=10):
            problems.append(f"the retried key was not acknowledged: {session.problems}")
    # Then the session goes back and forth between the two nodes, each move a takeover.
    for round_ in range(3):
        for node in (node2, node1):
            if not dispatch(node, session, deadline_s=10):
                problems.append(f"round {round_}: {session.problems}")
    problems += session.problems
    attempt(problems, verify_exact, session, node1)
    attempt(problems, verify_exact, session, node2)
    check(not problems, f"{len(problems)} problems: " + "; ".join(dict.fromkeys(problems).keys()))
    return (f"node-2 took over from the paused node-1 in {takeover * 1000:.0f} ms; node-1's dispatch read after "
            f"SIGCONT answered {stale_status}; {len(session.acked)} versions acknowledged, each once, "
            f"statuses {dict(session.statuses)}")


def scenario_postgres(cluster):
    """PostgreSQL stopped: dispatch and creation answer 503 (never 200), reads of held sessions work;
    restarted: dispatch works again within seconds."""
    front = Http(cluster.port)
    sessions = [create_session(front) for _ in range(6)]
    for s in sessions:
        for _ in range(2):
            check(dispatch(front, s, deadline_s=10), f"{s.problems}")
    cluster.run("stop", "postgres")
    outage = collections.Counter()
    problems = []
    keys = {}

    def read_while_down(s, when):
        status, _, body = front.request("GET", s.path("?views=counter"), None, s.headers())
        outage[f"read {when} {status}"] += 1
        if status != 200:
            problems.append(f"reading a held session {when} answered {status}: {body[:160]!r}")
        elif int(json.loads(body)["views"]["counter"]["counter"]) != 2:
            problems.append(f"session {s.id} read wrong while PostgreSQL was stopped: {body[:160]!r}")

    for s in sessions:
        read_while_down(s, "before a dispatch")
        keys[s.id] = uuid.uuid4().hex
        for _ in range(3):
            try:
                status, response, body = front.request(
                    "POST", s.path("/actions?views=counter"), ACTION, s.headers(keys[s.id]))
            except (OSError, HTTPException):
                status, response = "connection error", None
            outage[f"dispatch {status}"] += 1
            check(status != 200, f"session {s.id}: a dispatch answered 200 while PostgreSQL was stopped")
            if status != 503:
                problems.append(f"session {s.id}: a dispatch answered {status} while PostgreSQL was stopped")
            elif not response.getheader("Retry-After"):
                problems.append("a dispatch's 503 without Retry-After")
        status, _, body = front.request("POST", "/v1/sessions")
        outage[f"create {status}"] += 1
        check(status != 201, "a session was created while PostgreSQL was stopped")
        if status != 503:
            problems.append(f"creating a session answered {status} while PostgreSQL was stopped")
        read_while_down(s, "after a refused dispatch")
    cluster.run("start", "postgres")
    back = time.monotonic()
    recovered = []
    for s in sessions:
        check(dispatch(front, s, key=keys[s.id], deadline_s=15), f"not working again: {s.problems}")
        recovered.append(time.monotonic() - back)
    check(recovered[0] <= 10, f"the first dispatch after PostgreSQL came back took {recovered[0]:.1f} s")
    check(create_session(front), "no session created after PostgreSQL came back")
    for s in sessions:
        attempt(problems, verify_exact, s, front)
    check(not problems, f"{len(problems)} problems (outage answers {dict(outage)}): "
          + "; ".join(dict.fromkeys(problems).keys()))
    return (f"while stopped: {dict(outage)}; after the restart the first dispatch was acknowledged in "
            f"{recovered[0] * 1000:.0f} ms, all {len(sessions)} sessions in {recovered[-1] * 1000:.0f} ms")


def scenario_rolling(cluster):
    """SIGTERM, restart, next: every node once, under load through nginx."""
    front = Http(cluster.port)
    sessions = [create_session(front) for _ in range(12)]
    load = Load(cluster.port, sessions).start()
    time.sleep(2)
    timings = []
    for n in (1, 2, 3):
        started = time.monotonic()
        cluster.run("stop", f"node-{n}")
        stopped = time.monotonic()
        cluster.run("start", f"node-{n}")
        timings.append(f"node-{n} stopped in {(stopped - started) * 1000:.0f} ms")
        # As deploy/README.md says: nginx tries a node it found down again after fail_timeout (2 s).
        time.sleep(3)
    time.sleep(1)
    load.finish()
    statuses, connection_errors = load.statuses()
    problems = []
    attempt(problems, load.verify, front)
    # A 502 is the keep-alive race RELIABILITY.md names: a dispatch nginx sent on an idle connection just as
    # the stopping node closed it. nginx does not resend a POST; the client does, with its Idempotency-Key,
    # and `verify` proves each action applied once. A few are expected on a loaded machine, never many.
    unexpected = {code: c for code, c in statuses.items() if code not in (200, 503, 502)}
    if unexpected or statuses.get(502, 0) > 24:
        problems.append(f"clients saw errors other than 503 and a few 502s: {statuses}")
    check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))
    acked = sum(len(s.acked) for s in sessions)
    return (f"{acked} actions acknowledged on {len(sessions)} sessions, all present once; {', '.join(timings)}; "
            f"{load.poll_changes} poll changes, no reset; statuses {statuses}, "
            f"{connection_errors} connection errors (retried)")


def scenario_upgrade(cluster):
    """A rolling deploy of version 2 of the example app over version 1, under load: each node stopped and started
    again as version 2 (`REMVVM_APP_VERSION=2`, its heartbeat every second), in turn. Version 2 renames
    `counter/set`'s `value` to `count`, gives the state a counter label and shows it in the counter view; while a
    version 1 node lives, version 2 nodes write what it reads, and their own format only once the last is gone."""
    front = Http(cluster.port)
    sessions = [create_session(front) for _ in range(12)]
    # Sessions whose clients keep setting their counter to 7 with version 1's payload (which version 2 reads too).
    setters = [create_session(front) for _ in range(4)]
    stop_setting = threading.Event()

    def set_counter(s):
        http = Http(cluster.port)
        while not stop_setting.is_set():
            if dispatch_action(http, s, {"type": "counter/set", "payload": {"value": 7}}) != ["applied"]:
                return
            time.sleep(0.05)
        http.close()

    setting = [threading.Thread(target=set_counter, args=(s,)) for s in setters]
    for t in setting:
        t.start()
    load = Load(cluster.port, sessions).start()
    time.sleep(2)
    newer_while_old = "0"
    for n in (1, 2, 3):
        if n == 3:
            # The last version 1 node still runs: nothing of version 2's format is stored yet.
            newer_while_old = cluster.sql("SELECT (SELECT count(*) FROM log WHERE versions IS NOT NULL) + "
                                          "(SELECT count(*) FROM snapshots WHERE state_version > 1)")
        cluster.run("stop", f"node-{n}")
        cluster.run("start", f"node-{n}", env={"REMVVM_APP_VERSION": "2", "REMVVM_TIDY_INTERVAL": "1"})
        # As deploy/README.md says: nginx tries a node it found down again after fail_timeout (2 s).
        time.sleep(3)
    time.sleep(1)
    stop_setting.set()
    for t in setting:
        t.join(timeout=60)
    load.finish()
    statuses, connection_errors = load.statuses()
    problems = [p for s in setters for p in s.problems]
    attempt(problems, load.verify, front)
    if newer_while_old != "0":
        problems.append(f"{newer_while_old} records of version 2's format stored while a version 1 node ran")
    # Every node runs version 2 now and has had its heartbeat: it writes its own format.
    for s in setters:
        dispatch_action(front, s, {"type": "counter/set", "payload": {"count": 7}})
    newer_after = int(cluster.sql("SELECT count(*) FROM log WHERE versions IS NOT NULL"))
    if newer_after == 0:
        problems.append("no record of version 2's format stored after the last version 1 node stopped")
    # Each session's counter view shows the label, as a change of the view.
    for s in sessions + setters:
        try:
            view = read_views(front, s, "counter")["views"]["counter"]
            if view.get("label") != "Count":
                problems.append(f"session {s.id}: counter view {view} after the upgrade, without its label")
            if s in setters and view.get("counter") != "7":
                problems.append(f"session {s.id}: counter {view.get('counter')} after the upgrade, not 7")
        except Failure as failure:
            problems.append(str(failure))
    undecodable = []
    for n in (1, 2, 3):
        with open(os.path.join(cluster.dir, f"node-{n}.log"), errors="replace") as f:
            undecodable += [line.strip() for line in f if "cannot restore session" in line or "no longer decodes" in line]
    if undecodable:
        problems.append(f"{len(undecodable)} undecodable sessions: {undecodable[:3]}")
    statuses = collections.Counter(statuses)
    for s in setters:
        statuses.update(s.statuses)
    unexpected = {code: c for code, c in statuses.items() if code not in (200, 503, 502)}
    if unexpected or statuses.get(502, 0) > 24:
        problems.append(f"clients saw errors other than 503 and a few 502s: {statuses}")
    check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))
    acked = sum(len(s.acked) for s in sessions)
    return (f"{acked} actions acknowledged on {len(sessions)} sessions, all present once, every view labelled; "
            f"{len(setters)} sessions setting their counter throughout; version 2's format stored only after the "
            f"last version 1 node stopped ({newer_after} entries); {load.poll_changes} poll changes, no reset; "
            f"statuses {dict(statuses)}, {connection_errors} connection errors (retried)")


def dispatch_action(http, session, action, deadline_s=30.0):
    """Dispatches `action` (a dict) with an Idempotency-Key, retried with the same key until acknowledged;
    its results, or None (in session.problems)."""
    key = uuid.uuid4().hex
    body = json.dumps(action).encode()
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        try:
            status, response, answer = http.request("POST", session.path("/actions"), body, session.headers(key))
        except (OSError, HTTPException):
            session.connection_errors += 1
            time.sleep(0.02)
            continue
        session.statuses[status] += 1
        if status == 200:
            return json.loads(answer).get("results")
        if status not in RETRYABLE:
            session.problems.append(f"{action['type']} with key {key} answered {status}: {answer[:300]!r}")
            return None
        time.sleep(retry_delay(response))
    session.problems.append(f"{action['type']} with key {key} not acknowledged within {deadline_s:.0f} s")
    return None


def chat_lines(http, session, deadline_s=10.0):
    """The session's chat view as `from: text` lines, read through a takeover."""
    messages = read_views(http, session, "chat", deadline_s)["views"]["chat"]["messages"]
    return [f"{m['from']}: {m['text']}" for m in messages]


def wake_latency(cluster, hearer_node, room, rounds=20):
    """Median and worst ms from a post on node-1 until a member's long-poll on `hearer_node` is answered with it."""
    one, two = Http(cluster.node_port(1)), Http(cluster.node_port(hearer_node), timeout=30)
    poster, hearer = create_session(one), create_session(two)
    for http, s, name in ((one, poster, "p"), (two, hearer, "h")):
        check(dispatch_action(http, s, {"type": "chat/join", "payload": {"room": room, "name": name}}) == ["applied"],
              f"join: {s.problems}")
    times = []
    for n in range(rounds):
        status, _, body = two.request("GET", hearer.path("?views=chat"), None, hearer.headers())
        check(status == 200, f"read on node-{hearer_node} answered {status}")
        since = json.loads(body)["version"]
        answer = {}

        def poll():
            status, _, body = two.request(
                "GET", hearer.path(f"/poll?views=chat&since={since}&wait=10s"), None, hearer.headers(), timeout=30)
            answer["at"], answer["body"] = time.monotonic(), (status, body)

        waiter = threading.Thread(target=poll)
        waiter.start()
        time.sleep(0.05)
        sent = time.monotonic()
        check(dispatch_action(one, poster, {"type": "chat/post", "payload": {"text": f"wake {n}"}}) == ["applied"],
              f"post: {poster.problems}")
        waiter.join(timeout=15)
        check("at" in answer and f"wake {n}".encode() in answer["body"][1],
              f"node-{hearer_node}'s poll was not answered with post {n}: {answer.get('body')}")
        times.append((answer["at"] - sent) * 1000)
    times.sort()
    return times[len(times) // 2], times[-1]


def join_room(cluster, front, room):
    """Members join `room` through nginx until at least two nodes hold some (nginx's hash places them), six at
    least, twelve at most: the members, which node holds each session, and how many each node holds."""
    members = []
    owners = {}
    while len(members) < 12:
        s = create_session(front)
        s.name = f"m{len(members)}"
        check(dispatch_action(front, s, {"type": "chat/join", "payload": {"room": room, "name": s.name}})
              == ["applied"], f"join: {s.problems}")
        members.append(s)
        owners = cluster.owners()
        if len(members) >= 6 and len({owners.get(m.id) for m in members} - {None}) >= 2:
            break
    held = collections.Counter(owners.get(m.id) for m in members if owners.get(m.id))
    check(len(held) >= 2, f"the members are all on one node: {held}")
    return members, owners, held


def verify_chat_views(front, members, first, posted, expected_count, killed_at, problems):
    """Reads every member's chat view (through nginx: a killed node's members are taken over) until each holds
    `expected_count` messages (15 s at most); adds to `problems` every view that repeats a message or differs
    from `first`'s, and every poster whose acknowledged posts are not in it, in order. Returns `first`'s view and
    the seconds from `killed_at` until the views were read."""
    views = {}
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        views = {m.name: chat_lines(front, m) for m in members}
        if all(len(v) >= expected_count for v in views.values()):
            break
        time.sleep(0.2)
    caught_up = time.monotonic() - killed_at
    reference = views[first.name]
    for name, view in views.items():
        if len(set(view)) != len(view):
            problems.append(f"{name}'s view repeats a message: "
                            f"{[l for l, c in collections.Counter(view).items() if c > 1][:5]}")
        if view != reference:
            problems.append(f"{name}'s view differs from {first.name}'s: {view} against {reference}")
    for poster, lines in posted.items():
        mine = [l for l in reference if l.startswith(f"{poster}: ")]
        if mine != lines:
            problems.append(f"{poster}'s acknowledged posts {lines}, in the views {mine}")
    return reference, caught_up


def scenario_chat(cluster):
    """Chat members on different nodes hear each other in one order; a member's node is killed with kill -9
    while the others post: once taken over, its view holds every message once, in the same order."""
    front = Http(cluster.port)
    wake_median, wake_worst = wake_latency(cluster, 2, "wake-across")
    local_median, local_worst = wake_latency(cluster, 1, "wake-local")
    members, owners, held = join_room(cluster, front, "cluster")
    victim = held.most_common()[-1][0]  # the node holding the fewest members (but some)
    listeners = [m for m in members if owners.get(m.id) == victim]
    posters = [m for m in members if owners.get(m.id) != victim]
    each = max(40 // len(posters), 2)  # the chat view keeps the last 50
    posted = {m.name: [] for m in posters}
    killed = threading.Event()

    def post(member):
        http = Http(cluster.port)
        for n in range(each):
            if n == each // 2:
                killed.wait(30)
            text = f"{member.name}-{n}"
            if dispatch_action(http, member, {"type": "chat/post", "payload": {"text": text}}) == ["applied"]:
                posted[member.name].append(f"{member.name}: {text}")
            time.sleep(0.02)
        http.close()

    threads = [threading.Thread(target=post, args=(m,)) for m in posters]
    for t in threads:
        t.start()
    time.sleep(0.3)
    # The listeners heard the first half on the victim before it dies.
    heard_before = {m.id: len(chat_lines(front, m)) for m in listeners}
    cluster.kill9(victim)
    killed_at = time.monotonic()
    killed.set()
    for t in threads:
        t.join(timeout=60)
    problems = [p for m in members for p in m.problems]
    expected_count = sum(len(v) for v in posted.values())
    # Every member's view (the victim's members read through nginx: taken over by another node).
    reference, caught_up = verify_chat_views(front, members, posters[0], posted, expected_count, killed_at, problems)
    if len(reference) != expected_count:
        problems.append(f"{expected_count} posts acknowledged, the views hold {len(reference)}")
    check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))
    return (f"{len(members)} members on nodes {dict(held)}; node-{victim} killed with its {len(listeners)} "
            f"(who had heard {sorted(heard_before.values())} messages); {len(posters)} others posted {expected_count} "
            f"messages; every view holds them all once, in one order, {caught_up * 1000:.0f} ms after the kill; "
            f"a post on node-1 answered a poll on node-2 in {wake_median:.1f} ms (median of 20, worst {wake_worst:.1f}), "
            f"one on node-1 in {local_median:.1f} ms (worst {local_worst:.1f})")


def scenario_chatkill(cluster):
    """Issue 45: every member posts (each post with an Idempotency-Key, retried with it until acknowledged) while the
    node holding some of the posters is killed with kill -9: a message is written in its poster's transaction, so
    a retry on the node that takes the poster over replays it or posts it once. Every view holds each message
    once, in one order."""
    front = Http(cluster.port)
    members, owners, held = join_room(cluster, front, "crash")
    victim = held.most_common()[0][0]  # the node holding the most posters
    on_victim = [m for m in members if owners.get(m.id) == victim]
    each = max(40 // len(members), 2)  # the chat view keeps the last 50
    posted = {m.name: [] for m in members}
    started = threading.Barrier(len(members) + 1)

    def post(member):
        http = Http(cluster.port)
        started.wait(10)
        for n in range(each):
            text = f"{member.name}-{n}"
            if dispatch_action(http, member, {"type": "chat/post", "payload": {"text": text}}) == ["applied"]:
                posted[member.name].append(f"{member.name}: {text}")
        http.close()

    threads = [threading.Thread(target=post, args=(m,)) for m in members]
    for t in threads:
        t.start()
    started.wait(10)
    time.sleep(0.05)  # Posts in flight on every node.
    cluster.kill9(victim)
    killed_at = time.monotonic()
    for t in threads:
        t.join(timeout=90)
    problems = [p for m in members for p in m.problems]
    expected_count = sum(len(v) for v in posted.values())
    reference, caught_up = verify_chat_views(front, members, members[0], posted, expected_count, killed_at, problems)
    if len(reference) != expected_count or expected_count != len(members) * each:
        problems.append(f"{len(members) * each} posts sent, {expected_count} acknowledged, the views hold "
                        f"{len(reference)}")
    check(not problems, f"{len(problems)} problems: " + "; ".join(problems[:8]))
    return (f"{len(members)} members on nodes {dict(held)} posted {expected_count} keyed messages; node-{victim} "
            f"killed with {len(on_victim)} of them mid-post; every view holds each message once, in one order, "
            f"{caught_up * 1000:.0f} ms after the kill")


SCENARIOS = {"kill9": scenario_kill9, "sigstop": scenario_sigstop, "postgres": scenario_postgres,
             "rolling": scenario_rolling, "upgrade": scenario_upgrade, "chat": scenario_chat,
             "chatkill": scenario_chatkill}


def main():
    names = sys.argv[1:] or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        sys.exit(f"unknown scenario {unknown}; choose from {list(SCENARIOS)}")
    if not os.access(BINARY, os.X_OK):
        sys.exit(f"no server binary at {BINARY}: run `swift build` first, or set REMVVM_SERVER_BIN")
    failed = []
    for name in names:
        started = time.monotonic()
        cluster = Cluster()
        try:
            summary = SCENARIOS[name](cluster)
            print(f"PASS {name} ({time.monotonic() - started:.1f} s): {summary}", flush=True)
        except Exception as error:  # a scenario's failure is reported and the next one still runs
            kept = cluster.keep_logs(name)
            failed.append(name)
            print(f"FAIL {name} ({time.monotonic() - started:.1f} s): {error}\n{cluster.logs()}\n"
                  f"(logs kept in {kept})", flush=True)
        finally:
            cluster.close()
    if failed:
        sys.exit(f"cluster tests failed: {' '.join(failed)}")


if __name__ == "__main__":
    main()
