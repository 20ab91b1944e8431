import ExampleApp
import Foundation
import Logging
import MicroHTTP
import ReMVVMServer

/// The server's own share of a request, without libmicrohttpd or the kernel: the requests the wrk script of
/// `make bench` sends (`POST /v1/sessions/{id}/actions?views=counter` with a bearer token), over 64 sessions
/// and over one, and `GET /healthz`, answered in-process by the API handler the server runs:
///   swift run -c release remvvm-bench 1000000 api
/// Routing, credentials, session lookup, view selection, decoding, the store, the answer's body and headers,
/// metrics and the responder are all in; only the request value is made once per session, not per request.
/// Rounds of a tenth of the iterations: a dispatch here costs microseconds, not the store's nanoseconds.
func runAPIBenchmarks(iterations: Int) throws {
    var logger = Logger(label: "remvvm.bench")
    logger.logLevel = .warning  // A line per created session would drown the table.
    let server = StoreServer(ExampleApp.definition(), logger: logger)
    let requests = try (0..<64).map { _ in try dispatchRequest(on: createSession(server)) }
    let answered = Answers()
    for sessions in [64, 1] {
        let name = "api: dispatch over \(sessions) session(s), no transport"
        _ = Benchmark(name: name, iterations: iterations / 10).run { count in
            for index in 0..<count {
                server.handle(requests[index % sessions], responder: Responder { answered.count($0) })
            }
        }
    }
    // The work of scenario 2 over many sessions: each dispatch answers a long-poll parked on its session
    // (woken inline, as one waiter is), so this row less the dispatch row is what a parked poll costs. Over
    // 10,000 sessions, as in the fan-out, each change finds its session's memory out of the cache.
    for count in [64, 10_000] {
        try measureDispatchWithPoll(server, sessions: count, iterations: iterations / 10, answered: answered)
    }
    let health = HTTPRequest(method: "GET", path: "/healthz", headers: ["Host": "127.0.0.1:23480"])
    _ = Benchmark(name: "api: GET /healthz, no transport", iterations: iterations / 10).run { count in
        for _ in 0..<count { server.handle(health, responder: Responder { answered.count($0) }) }
    }
    guard answered.failures == 0 else { throw BenchmarkFailure("\(answered.failures) answers were not 200") }
}

/// Parks a long-poll on each of `count` sessions and dispatches to each in turn, which answers its poll.
private func measureDispatchWithPoll(_ server: StoreServer, sessions count: Int, iterations: Int, answered: Answers)
    throws
{
    let sessions = try (0..<count).map { _ in try createSession(server) }
    let dispatches = sessions.map(dispatchRequest)
    let versions = Versions(sessions.map { _ in "" })
    for index in sessions.indices {
        server.handle(dispatches[index], responder: Responder { versions.keep($0, at: index) })
    }
    let name = "api: dispatch + its long-poll's answer, \(count) sessions"
    _ = Benchmark(name: name, iterations: iterations).run { iterations in
        for iteration in 0..<iterations {
            let index = iteration % sessions.count
            server.handle(
                pollRequest(on: sessions[index], since: versions.version(at: index)),
                responder: Responder { answered.count($0) })
            server.handle(dispatches[index], responder: Responder { versions.keep($0, at: index) })
        }
    }
    guard versions.failures == 0, versions.pollsAnswered else {
        throw BenchmarkFailure("dispatches failed or long-polls stayed parked")
    }
}

/// A session made through the API, as a client makes one: its id and token.
private func createSession(_ server: StoreServer) throws -> (id: String, token: String) {
    let made = Answers()
    server.handle(HTTPRequest(method: "POST", path: "/v1/sessions"), responder: Responder { made.keep($0) })
    guard let response = made.last, response.status == 201, case .bytes(let body) = response.body,
        let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
        let id = object["id"] as? String, let token = object["token"] as? String
    else { throw BenchmarkFailure("POST /v1/sessions did not create a session") }
    return (id, token)
}

/// The request wrk sends to `session`, with the headers it sends.
private func dispatchRequest(on session: (id: String, token: String)) -> HTTPRequest {
    let body = Array(#"{"type":"counter/increase"}"#.utf8)
    return HTTPRequest(
        method: "POST", path: "/v1/sessions/\(session.id)/actions", query: [(name: "views", value: "counter")],
        headers: [
            "Host": "127.0.0.1:23480", "Authorization": "Bearer \(session.token)",
            "Content-Type": "application/json", "Content-Length": "\(body.count)",
        ],
        body: body)
}

/// A long-poll on `session` for the counter view after `since`, as the fan-out client sends it.
private func pollRequest(on session: (id: String, token: String), since: String) -> HTTPRequest {
    HTTPRequest(
        method: "GET", path: "/v1/sessions/\(session.id)/poll",
        query: [(name: "views", value: "counter"), (name: "since", value: since), (name: "wait", value: "55s")],
        headers: ["Host": "127.0.0.1:23480", "Authorization": "Bearer \(session.token)"])
}

/// Each session's latest version, from its dispatch answers' `Store-Version`.
private final class Versions: @unchecked Sendable {
    // Only touched on the benchmark's thread: a detached responder answers on the caller's thread, and the
    // polls are woken inline by the dispatch that runs there.
    private var latest: [String]
    private(set) var failures = 0

    init(_ initial: [String]) { latest = initial }

    func version(at index: Int) -> String { latest[index] }

    func keep(_ response: HTTPResponse, at index: Int) {
        guard response.status == 200, let version = response.headers["Store-Version"] else {
            failures += 1
            return
        }
        latest[index] = version
    }

    /// Whether every session's latest version came from a dispatch (so each poll had one to wait after).
    var pollsAnswered: Bool { !latest.contains("") }
}

/// What the detached responders were given.
private final class Answers: @unchecked Sendable {
    // Only touched on the benchmark's thread: a detached responder answers on the caller's thread.
    private(set) var last: HTTPResponse?
    private(set) var failures = 0

    func keep(_ response: HTTPResponse) { last = response }
    func count(_ response: HTTPResponse) { if response.status != 200 { failures += 1 } }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
