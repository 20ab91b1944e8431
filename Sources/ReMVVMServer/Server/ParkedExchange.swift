import MicroHTTP

/// What a long-poll keeps of its exchange while it waits: what sending its answer takes, in one cache line.
///
/// A whole ``Exchange`` (the request, the route's label, the logger: 153 bytes) was copied out of the waiting
/// poll to send each answer: three cache lines of an object last touched when it parked, and with ten thousand
/// polls parked, cold ones. The log line's parts (method, path, route, logger) are kept, boxed, only when
/// answers are logged.
struct ParkedExchange: Sendable {
    private let responder: Responder
    private let metrics: ServerMetrics
    private let routeIndex: Int
    private let isAPI: Bool
    /// The exchange the log line is written from; nil unless answers are logged.
    private let logged: Logged?

    /// A boxed exchange: one pointer in the parked poll instead of its 153 bytes.
    private final class Logged: Sendable {
        let exchange: Exchange

        init(_ exchange: Exchange) {
            self.exchange = exchange
        }
    }

    /// Whether the log line's parts are kept (answers are logged).
    var keepsLogLine: Bool { logged != nil }

    init(_ exchange: Exchange) {
        responder = exchange.responder
        metrics = exchange.metrics
        routeIndex = exchange.routeIndex
        isAPI = exchange.isAPI
        logged = exchange.logsAnswers ? Logged(exchange.forLogLine) : nil
    }

    /// Answers with a response that already carries the common headers, as
    /// ``Exchange/sendPrepared(_:dispatchStarted:)`` does.
    func sendPrepared(_ response: HTTPResponse) {
        if let logged {
            logged.exchange.sendPrepared(response)
            return
        }
        guard responder.respond(response) else { return }
        metrics.record(routeIndex: routeIndex, status: response.status, dispatchNanoseconds: nil)
    }

    /// Answers with a problem, as ``Exchange/send(_:)-(Problem)``.
    func send(_ problem: Problem) {
        sendPrepared(Exchange.withCommonHeaders(problem.response, isAPI: isAPI))
    }
}
