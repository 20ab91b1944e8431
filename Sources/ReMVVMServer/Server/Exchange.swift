import Logging
import MicroHTTP

/// One request being answered: adds the common headers, counts and logs the answer.
struct Exchange: Sendable {
    let request: HTTPRequest
    let responder: Responder
    /// The route's label in metrics and logs (`/v1/sessions/{id}/actions`), never the raw path.
    let route: String
    /// The route's index, for counting.
    let routeIndex: Int
    let isAPI: Bool
    /// When the request reached the API, in ``MonotonicClock`` nanoseconds.
    let started: Int64
    let metrics: ServerMetrics
    let logger: Logger
    /// Whether `logger` writes debug lines (a line per answer), read once per API rather than from the
    /// logger's handler on every answer.
    let logsAnswers: Bool

    /// The headers every API answer carries: no MIME sniffing, no caching.
    static let apiHeaders: HTTPHeaders = ["X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"]

    /// Answers the request (the first answer wins), adding the common headers.
    func send(_ response: HTTPResponse, dispatchStarted: Int64? = nil) {
        sendPrepared(Self.withCommonHeaders(response, isAPI: isAPI), dispatchStarted: dispatchStarted)
    }

    /// `response` with the headers every answer carries: no MIME sniffing, and no caching of API answers
    /// unless the response says otherwise.
    static func withCommonHeaders(_ response: HTTPResponse, isAPI: Bool) -> HTTPResponse {
        var response = response
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if isAPI, !response.headers.contains("Cache-Control") {
            response.headers.add(name: "Cache-Control", value: "no-store")
        }
        return response
    }

    /// Answers with a response that already carries the common headers (``apiHeaders``), such as
    /// a long-poll answer shared by every waiter woken by the same dispatch; `dispatchStarted` adds
    /// the time since then to the dispatch latency histogram.
    func sendPrepared(_ response: HTTPResponse, dispatchStarted: Int64? = nil) {
        guard responder.respond(response) else { return }
        let now = dispatchStarted != nil || logsAnswers ? MonotonicClock.nanoseconds() : 0
        metrics.record(
            routeIndex: routeIndex, status: response.status, dispatchNanoseconds: dispatchStarted.map { now - $0 })
        if logsAnswers {
            logger.debug(
                "\(request.method) \(request.path) \(response.status)",
                metadata: [
                    "http.route": "\(route)",
                    "http.duration_ms": "\(Double((now - started) / 1000) / 1000)",
                ])
        }
    }

    /// Answers with a problem.
    func send(_ problem: Problem) {
        send(problem.response)
    }

    /// The exchange as a parked request keeps it (see ``ParkedExchange``).
    var parked: ParkedExchange { ParkedExchange(self) }

    /// The exchange with, of the request, only the method and path its log line names.
    ///
    /// The headers, query and body of a parked request were read when it parked; kept, they would stay in memory
    /// for as long as it waits and be freed, cold, on the path of the change that answers it.
    var forLogLine: Exchange {
        Exchange(
            request: HTTPRequest(method: request.method, path: request.path), responder: responder, route: route,
            routeIndex: routeIndex, isAPI: isAPI, started: started, metrics: metrics, logger: logger,
            logsAnswers: logsAnswers)
    }
}
