import CAnswerBatching
import HTTPTestClient
import MicroHTTP
import Testing

/// Answers given in one worker pass leave together (``HTTPServerConfiguration/batchesAnswers``); with the
/// batching on or off, every answer reaches its own connection, complete and in order.
@Suite("Answers of one pass")
struct BatchedAnswersTests {
    private static let echoPath: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
        responder.respond(.text("answer for \(request.path)"))
    }

    @Test(arguments: [true, false])
    func theServerBatchesExactlyWhenConfiguredTo(batching: Bool) throws {
        try withServer({ $0.batchesAnswers = batching }, handler: Self.echoPath) { server in
            #expect(server.batchesAnswers == batching)
        }
    }

    @Test(arguments: [true, false])
    func theServerReleasesInOneCallOnlyWhenAskedBatchingAndAble(oneCall: Bool) throws {
        let able = answer_batching_can_release_in_one_call() == 1
        try withServer({ $0.releasesAnswersInOneCall = oneCall }, handler: Self.echoPath) { server in
            #expect(server.releasesAnswersInOneCall == (oneCall && able))
        }
        try withServer(
            {
                $0.batchesAnswers = false
                $0.releasesAnswersInOneCall = oneCall
            }, handler: Self.echoPath
        ) { server in
            #expect(!server.releasesAnswersInOneCall)
        }
    }

    @Test(arguments: [true, false])
    func anAnswerGivenDuringTheHandlerIsHeldUntilItsPassEnds(batching: Bool) throws {
        // The request ends (its answer sent to the socket) on the worker thread, in the same pass: a held
        // answer is still in the thread's list then, and only its next epoll_wait releases it.
        let heldAtEnd = Shared<[Int32]>([])
        let handler: @Sendable (HTTPRequest, Responder) -> Void = { request, responder in
            responder.onTermination { heldAtEnd.update { $0.append(answer_batching_held_count()) } }
            responder.respond(.text("answer for \(request.path)"))
        }
        try withServer({ $0.batchesAnswers = batching }, handler: handler) { server in
            let client = try TestHTTPClient(port: server.port)
            for index in 0..<20 {
                #expect(try client.request("GET", "/held/\(index)").text == "answer for /held/\(index)")
            }
            #expect(eventually { heldAtEnd.value.count == 20 })
        }
        #expect(heldAtEnd.value.allSatisfy { batching ? $0 >= 1 : $0 == 0 }, "held at the end: \(heldAtEnd.value)")
    }

    @Test(arguments: [(true, true), (true, false), (false, false)])
    func requestsReadyAtOnceOnManyConnectionsAreEachAnswered(batching: Bool, oneCall: Bool) throws {
        let configure = { (configuration: inout HTTPServerConfiguration) in
            configuration.batchesAnswers = batching
            configuration.releasesAnswersInOneCall = oneCall
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
        try withServer({ $0.batchesAnswers = batching }, handler: Self.echoPath) { server in
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
