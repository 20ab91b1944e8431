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
func runAPIBenchmarks(iterations: Int) throws {
    var logger = Logger(label: "remvvm.bench")
    logger.logLevel = .warning  // A line per created session would drown the table.
    let server = StoreServer(ExampleApp.definition(), logger: logger)
    let requests = try (0..<64).map { _ in try dispatchRequest(on: createSession(server)) }
    let answered = Answers()
    for sessions in [64, 1] {
        _ = Benchmark(name: "api: dispatch over \(sessions) session(s), no transport", iterations: iterations).run {
            count in
            for index in 0..<count {
                server.handle(requests[index % sessions], responder: Responder { answered.count($0) })
            }
        }
    }
    let health = HTTPRequest(method: "GET", path: "/healthz", headers: ["Host": "127.0.0.1:23480"])
    _ = Benchmark(name: "api: GET /healthz, no transport", iterations: iterations).run { count in
        for _ in 0..<count { server.handle(health, responder: Responder { answered.count($0) }) }
    }
    guard answered.failures == 0 else { throw BenchmarkFailure("\(answered.failures) answers were not 200") }
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
