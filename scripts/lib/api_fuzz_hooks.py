"""Schemathesis hooks for scripts/api-fuzz: real sessions for generated requests, and the API's own checks.

Outside the stateful phase, Schemathesis would send every session route a made-up id and token and get
404 every time, never reaching the code behind it. `before_call` gives each such request a fresh session
and its bearer token instead (the stateful phase keeps what the spec's links carry: the id and token of a
session it created). The checks add what the generic ones cannot know about this API:

- `session_route_needs_its_token`: a session route answers with success only to its own token; the
  same request without credentials, with another token, or with a wrong cookie is answered 404 (204 on
  /events), as public/openapi.yaml documents, never 401/403 (they would tell that the session exists).
- `security_headers`: every answer has `X-Content-Type-Options: nosniff`, every API answer
  `Cache-Control: no-store`, and every error of the API is `application/problem+json`.

One kind of answer is not the server's: libmicrohttpd refuses a head larger than the connection's memory
with its own HTML page before the server sees the request (RELIABILITY.md, "What libmicrohttpd answers on
its own"). `filter_failure` drops the failures of exactly those answers, for heads past the limits the
server documents; the transport's sweeps in LimitsTests cover the rest.
"""

import http.client
import json
import os

import schemathesis
from schemathesis.generation import GenerationMode
from schemathesis.generation.meta import TestPhase

HOST = os.environ.get("API_FUZZ_HOST", "127.0.0.1")
PORT = int(os.environ["API_FUZZ_PORT"])
TIMEOUT = 10
WRONG_TOKEN = "0" * 32
# The server's --connection-memory (scripts/api-fuzz passes the same), and the 1 KiB of it an answer needs.
CONNECTION_MEMORY = int(os.environ.get("API_FUZZ_CONNECTION_MEMORY", "4608"))
ANSWER_ROOM = 1024
BYTES_PER_VALUE = 64
LIBRARY_PAGE = b"<html><head><title>Request too big</title>"


def _request(method, path, headers=None, body=None):
    """One request on a fresh connection (bounded by TIMEOUT); returns (status, headers, body)."""
    connection = http.client.HTTPConnection(HOST, PORT, timeout=TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        # An event stream never ends: the status and headers are all a probe needs.
        content = b"" if response.getheader("Content-Type") == "text/event-stream" else response.read()
        return response.status, response.headers, content
    finally:
        connection.close()


def _new_session():
    status, _, body = _request("POST", "/v1/sessions")
    if status != 201:
        raise AssertionError(f"POST /v1/sessions answered {status}, not 201: {body[:200]!r}")
    created = json.loads(body)
    return created["id"], created["token"], created["version"]


def _is_session_route(case):
    return "{id}" in case.operation.path


@schemathesis.hook
def before_call(context, case, kwargs):
    """Points a generated request at a real session with its token (not in the stateful phase)."""
    if not _is_session_route(case):
        return
    if case.meta is not None and case.meta.phase.name == TestPhase.STATEFUL:
        return
    session_id, token, version = _new_session()
    case.path_parameters = {**(case.path_parameters or {}), "id": session_id}
    headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    # A valid version the generator made up names another history: 412, or a reset at once. In valid
    # cases, use the session's own, so that a dispatch applies with If-Match and a poll parks.
    if case.meta is not None and case.meta.generation.mode == GenerationMode.POSITIVE:
        if headers.get("If-Match", "*") != "*":
            headers["If-Match"] = f'"{version}"'
        if case.operation.path.endswith("/poll") and (case.query or {}).get("since"):
            case.query = {**case.query, "since": version}
    case.headers = headers


@schemathesis.hook
def filter_case(context, case):
    """Drops cases whose `views` goes out as `views=` without being the empty list (`[""]`, or `""` for an
    array): on the wire they are the empty list, which is valid (every view)."""
    views = (case.query or {}).get("views")
    return not (views == "" or (isinstance(views, list) and views and all(name == "" for name in views)))


@schemathesis.hook
def filter_failure(context, failure, case, response):
    """Keeps every failure but two documented answers: `use_after_free` on /events answering 204, its "no
    such session" (an EventSource stops reconnecting on 204), where the check wants 404; and libmicrohttpd's
    own page for a head past the connection's memory."""
    if failure.code == "ST301" and case.operation.path.endswith("/events") and response.status_code == 204:
        return False
    return not _refused_by_the_library(response)


def _refused_by_the_library(response):
    """Whether libmicrohttpd answered with its own page a head that takes more of the connection's memory than
    the server handles (`ConnectionMemory`: the head's bytes and an entry per query argument and field)."""
    if response.status_code not in (414, 431) or not response.content.startswith(LIBRARY_PAGE):
        return False
    request = response.request
    target = _path_and_query(response)
    line = len(f"{request.method} {target} HTTP/1.1\r\n".encode())
    fields = [("Host", f"{HOST}:{PORT}"), *request.headers.items()]
    field_bytes = sum(len(f"{name}: {value}\r\n".encode()) for name, value in fields)
    query = target.partition("?")[2]
    arguments = query.count("&") + 1 if query else 0
    head_use = line + field_bytes + BYTES_PER_VALUE * (arguments + len(fields))
    return head_use > CONNECTION_MEMORY - ANSWER_ROOM


def _path_and_query(response):
    url = response.request.url
    start = url.index("/", url.index("//") + 2)
    return url[start:]


def _without_credentials(response):
    return {
        name: value
        for name, value in response.request.headers.items()
        if name.lower() not in ("authorization", "cookie", "content-length", "connection", "host")
    }


@schemathesis.check
def session_route_needs_its_token(ctx, response, case):
    """A session route's success needs the session's own token: without any credentials a request gets 401 with
    `WWW-Authenticate: Bearer`, with wrong ones a 404 (204 on /events)."""
    if not _is_session_route(case) or not 200 <= response.status_code < 300:
        return None
    wrong = 204 if case.operation.path.endswith("/events") else 404
    method = response.request.method
    path = _path_and_query(response)
    body = response.request.body
    base = _without_credentials(response)
    probes = {
        "no credentials": (base, 401),
        "another token": ({**base, "Authorization": f"Bearer {WRONG_TOKEN}"}, wrong),
        "another cookie": ({**base, "Cookie": f"remvvm_token={WRONG_TOKEN}"}, wrong),
        "a malformed Authorization": ({**base, "Authorization": "Basic Zm9vOmJhcg=="}, wrong),
    }
    for name, (headers, refused) in probes.items():
        status, answer, content = _request(method, path, headers, body)
        if status != refused:
            raise AssertionError(
                f"{method} {path} with {name} answered {status}, not {refused}: {content[:200]!r}"
            )
        if status == 401 and answer.get("WWW-Authenticate") != "Bearer":
            raise AssertionError(f"{method} {path} with {name}: 401 without WWW-Authenticate: Bearer")
    return None


@schemathesis.check
def security_headers(ctx, response, case):
    """nosniff everywhere, no-store on the API, and problem+json for the API's errors."""
    path = case.operation.path
    headers = response.headers
    if headers.get("x-content-type-options") != ["nosniff"]:
        raise AssertionError(f"X-Content-Type-Options is {headers.get('x-content-type-options')}, not nosniff")
    is_api = path.startswith("/v1/") or path in ("/healthz", "/metrics")
    if is_api and headers.get("cache-control") != ["no-store"]:
        raise AssertionError(f"Cache-Control is {headers.get('cache-control')}, not no-store")
    if response.status_code >= 400:
        content_type = (headers.get("content-type") or [""])[0]
        if not content_type.startswith("application/problem+json"):
            raise AssertionError(f"a {response.status_code} answer has Content-Type {content_type!r}")
    return None
