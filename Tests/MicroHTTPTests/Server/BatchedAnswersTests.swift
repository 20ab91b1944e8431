import CTransport
import HTTPTestClient
import MicroHTTP
import Testing

/// Answers given in one worker pass leave together when the pass ends (``TransportTuning/batchesAnswers``);
/// with the batching on or off, every answer reaches its own connection, complete and in order.
@Suite("Answers of one pass")
struct BatchedAnswersTests {
    private static let echoPath: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
        responder.respond(.text("answer for \(request.path)"))
    }

    @Test(arguments: [true, false])
    func theServerBatchesExactlyWhenConfiguredTo(batching: Bool) throws {
        try withServer({ $0.tuning.batchesAnswers = batching }, handler: Self.echoPath) { server in
            #expect(server.batchesAnswers == batching)
        }
    }

    @Test(arguments: [true, false])
    func theServerReleasesInOneCallOnlyWhenAskedBatchingAndAble(oneCall: Bool) throws {
        let able = remvvm_uncork_ring_is_usable() == 1
        try withServer({ $0.tuning.releasesAnswersInOneCall = oneCall }, handler: Self.echoPath) { server in
            #expect(server.releasesAnswersInOneCall == (oneCall && able))
        }
        try withServer(
            {
                $0.tuning.batchesAnswers = false
                $0.tuning.releasesAnswersInOneCall = oneCall
            }, handler: Self.echoPath
        ) { server in
            #expect(!server.releasesAnswersInOneCall)
        }
    }

    /// The request ends (its answer written to the socket) on the worker, inside its pass: there, its client
    /// has not received the answer yet when it is held, and has when it is not. Every connection answered once
    /// before, as libmicrohttpd pushes a connection's first answer itself.
    @Test(arguments: [true, false])
    func anAnswerGivenDuringTheHandlerReachesItsClientWhenThePassEnds(batching: Bool) throws {
        let count = 8
        let clients = Shared<[Int: TestHTTPClientBox]>([:])
        let arrivedAtEnd = Shared<[Int: Bool]>([:])
        let handler: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
            if request.path.hasPrefix("/held/"), let index = Int(request.path.dropFirst("/held/".count)) {
                responder.onTermination {
                    // Shorter than TCP_CORK's own 200 ms ceiling, long enough for loopback to deliver.
                    let arrived = clients.value[index]?.client.bytesArrive(within: .milliseconds(50)) ?? false
                    arrivedAtEnd.update { $0[index] = arrived }
                }
            }
            responder.respond(.text("answer for \(request.path)"))
        }
        try withServer({ $0.tuning.batchesAnswers = batching }, handler: handler) { server in
            for index in 0..<count {
                let client = try TestHTTPClient(port: server.port)
                #expect(try client.request("GET", "/warm/\(index)").text == "answer for /warm/\(index)")
                clients.update { $0[index] = TestHTTPClientBox(client: client) }
            }
            for index in 0..<count {
                try clients.value[index]?.client.sendRequest("GET", "/held/\(index)")
            }
            #expect(eventually { arrivedAtEnd.value.count == count })
            for index in 0..<count {
                #expect(try clients.value[index]?.client.readResponse().text == "answer for /held/\(index)")
            }
        }
        #expect(arrivedAtEnd.value.values.allSatisfy { $0 == !batching }, "arrived in the pass: \(arrivedAtEnd.value)")
    }

    @Test(arguments: [(true, true), (true, false), (false, false)])
    func requestsReadyAtOnceOnManyConnectionsAreEachAnswered(batching: Bool, oneCall: Bool) throws {
        let configure = { (configuration: inout HTTPServerConfiguration) in
            configuration.tuning.batchesAnswers = batching
            configuration.tuning.releasesAnswersInOneCall = oneCall
        }
        try withServer(configure, handler: Self.echoPath) { server in
            let clients = try (0..<16).map { _ in try TestHTTPClient(port: server.port) }
            // Every request is out before any answer is read, so a worker finds several ready in one pass.
            for (index, client) in clients.enumerated() {
                try client.sendRequest("GET", "/item/\(index)")
            }
            for (index, client) in clients.enumerated() {
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == "answer for /item/\(index)")
            }
            // The connections stay usable for the next round.
            for (index, client) in clients.enumerated() {
                #expect(try client.request("GET", "/again/\(index)").text == "answer for /again/\(index)")
            }
        }
    }

    @Test(arguments: [true, false])
    func pipelinedRequestsOnOneConnectionAreAnsweredInOrder(batching: Bool) throws {
        try withServer({ $0.tuning.batchesAnswers = batching }, handler: Self.echoPath) { server in
            let client = try TestHTTPClient(port: server.port)
            try client.send(
                "GET /first HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /second HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET /third HTTP/1.1\r\nHost: localhost\r\n\r\n")
            for path in ["/first", "/second", "/third"] {
                #expect(try client.readResponse().text == "answer for \(path)")
            }
        }
    }

    @Test func anAnswerThatClosesTheConnectionArrivesWhole() throws {
        try withServer(handler: Self.echoPath) { server in
            let client = try TestHTTPClient(port: server.port)
            let response = try client.request("GET", "/last", headers: [("Connection", "close")])
            #expect(response.text == "answer for /last")
            #expect(client.waitForClose(timeout: .seconds(5)))
        }
    }
}

/// A test client handed to the server's worker, which only polls its socket while the test thread waits.
// Safety: the worker only calls `bytesArrive(within:)`, which reads nothing of the client but its immutable
// descriptor; the test thread only sends on it meanwhile, and reads from it once every such call has returned.
final class TestHTTPClientBox: @unchecked Sendable {
    let client: TestHTTPClient

    init(client: TestHTTPClient) {
        self.client = client
    }
}
