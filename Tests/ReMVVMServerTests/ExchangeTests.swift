import CoreMetrics
import Logging
import MicroHTTP
import Synchronization
import Testing

@testable import ReMVVMServer

/// What an exchange keeps of its request once the request parks, and how the parked form answers.
@Suite("Exchange")
struct ExchangeTests {
    private static func exchange(
        logsAnswers: Bool, metrics: ServerMetrics, onResponse: @escaping @Sendable (HTTPResponse) -> Void
    ) -> Exchange {
        let request = HTTPRequest(
            method: "GET", path: "/v1/sessions/0123456789abcdef0123456789abcdef/poll",
            query: [(name: "views", value: "counter"), (name: "since", value: "00cb453415cdf4c.0")],
            headers: ["Authorization": "Bearer 0123456789abcdef0123456789abcdef", "Host": "127.0.0.1"],
            body: Array("unused".utf8), clientAddress: "10.0.0.7")
        return Exchange(
            request: request, responder: Responder(onResponse: onResponse), route: "/v1/sessions/{id}/poll",
            routeIndex: 3, isAPI: true, started: 42, metrics: metrics, logger: Logger(label: "test"),
            logsAnswers: logsAnswers)
    }

    @Test func theLogLinesExchangeKeepsOnlyTheMethodAndPathOfItsRequest() {
        let exchange = Self.exchange(
            logsAnswers: true,
            metrics: ServerMetrics(routeLabels: ["a", "b", "c", "d"], factory: NOOPMetricsHandler.instance)
        ) {
            _ in
        }

        let kept = exchange.forLogLine

        #expect(kept.request.method == "GET")
        #expect(kept.request.path == exchange.request.path)
        #expect(kept.request.query.isEmpty)
        #expect(kept.request.headers.isEmpty)
        #expect(kept.request.body.isEmpty)
        #expect(kept.responder === exchange.responder)
        #expect(kept.route == exchange.route)
        #expect(kept.routeIndex == 3)
        #expect(kept.isAPI)
        #expect(kept.started == 42)
        #expect(kept.logsAnswers)
    }

    @Test(arguments: [false, true])
    func aParkedExchangeAnswersItsResponderAndCountsTheAnswer(logsAnswers: Bool) {
        let backend = MetricsBackend()
        let metrics = ServerMetrics(routeLabels: ["a", "b", "c", "d"], factory: backend.factory)
        let sent = Mutex<[HTTPResponse]>([])
        let parked = Self.exchange(logsAnswers: logsAnswers, metrics: metrics) { response in
            sent.withLock { $0.append(response) }
        }.parked
        #expect(parked.keepsLogLine == logsAnswers)

        parked.sendPrepared(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: .bytes([])))
        parked.send(.sessionNotFound)  // Ignored: the first answer wins.

        let responses = sent.withLock { $0 }
        #expect(responses.map(\.status) == [200])
        let counted = backend.text.split(separator: "\n").filter {
            $0.hasPrefix("remvvm_http_requests_total{") && $0.contains(#"route="d""#)
        }
        #expect(counted == [#"remvvm_http_requests_total{route="d",status="200"} 1"#])
    }

    @Test func aParkedExchangesProblemCarriesTheCommonHeaders() {
        let sent = Mutex<HTTPResponse?>(nil)
        let parked = Self.exchange(
            logsAnswers: false,
            metrics: ServerMetrics(routeLabels: ["a", "b", "c", "d"], factory: NOOPMetricsHandler.instance)
        ) {
            response in sent.withLock { $0 = response }
        }.parked

        parked.send(.sessionNotFound)

        let response = sent.withLock { $0 }
        #expect(response?.status == 404)
        #expect(response?.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response?.headers["Cache-Control"] == "no-store")
        #expect(response?.headers["Content-Type"] == "application/problem+json")
    }
}
