import Logging
import MicroHTTP

/// One request being answered: adds the common headers, counts and logs the answer.
struct Exchange: Sendable {
    let request: HTTPRequest
    let responder: Responder
    /// The route's label in metrics and logs (`/v1/sessions/{id}/actions`), never the raw path.
    let route: String
    let isAPI: Bool
    let started: ContinuousClock.Instant
    let metrics: ServerMetrics
    let logger: Logger

    /// Answers the request (the first answer wins).
    func send(_ response: HTTPResponse) {
        var response = response
        response.headers["X-Content-Type-Options"] = "nosniff"
        if isAPI, !response.headers.contains("Cache-Control") { response.headers["Cache-Control"] = "no-store" }
        guard responder.respond(response) else { return }
        metrics.record(route: route, status: response.status)
        if logger.logLevel <= .debug {
            let elapsed = ContinuousClock.now - started
            logger.debug(
                "\(request.method) \(request.path) \(response.status)",
                metadata: [
                    "http.route": "\(route)",
                    "http.duration_ms": "\(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000)",
                ])
        }
    }

    /// Answers with a problem.
    func send(_ problem: Problem) {
        send(problem.response)
    }
}
