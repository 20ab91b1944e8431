import Logging
import MicroHTTP
import Testing

@testable import ReMVVMServer

/// What an exchange keeps of its request once the request parks.
@Suite("Exchange")
struct ExchangeTests {
    @Test func aParkedExchangeKeepsOnlyTheMethodAndPathOfItsRequest() {
        let request = HTTPRequest(
            method: "GET", path: "/v1/sessions/0123456789abcdef0123456789abcdef/poll",
            query: [(name: "views", value: "counter"), (name: "since", value: "00cb453415cdf4c5.0")],
            headers: ["Authorization": "Bearer 0123456789abcdef0123456789abcdef", "Host": "127.0.0.1"],
            body: Array("unused".utf8), clientAddress: "10.0.0.7")
        let exchange = Exchange(
            request: request, responder: Responder { _ in }, route: "/v1/sessions/{id}/poll", routeIndex: 3,
            isAPI: true, started: 42, metrics: ServerMetrics(routeLabels: ["a", "b", "c", "d"]),
            logger: Logger(label: "test"), logsAnswers: true)

        let parked = exchange.parked

        #expect(parked.request.method == "GET")
        #expect(parked.request.path == request.path)
        #expect(parked.request.query.isEmpty)
        #expect(parked.request.headers.isEmpty)
        #expect(parked.request.body.isEmpty)
        #expect(parked.responder === exchange.responder)
        #expect(parked.route == exchange.route)
        #expect(parked.routeIndex == 3)
        #expect(parked.isAPI)
        #expect(parked.started == 42)
        #expect(parked.logsAnswers)
    }
}
