import HTTPTestClient
import MicroHTTP
import Testing

@Suite("Deferred answers (suspend and resume)")
struct DeferredResponseTests {
    @Test func answerFromAnotherThreadAfter50msIsDelivered() throws {
        try withServer(handler: { request, responder in
            runLater(after: .milliseconds(50)) { responder.respond(.text("late \(request.path)")) }
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/wait")
            #expect(eventually { server.suspendedConnections == 1 })
            let response = try client.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "late /wait")
            #expect(response.header("Connection")?.lowercased() != "close")
            #expect(eventually { server.suspendedConnections == 0 })
            // The resumed connection is kept alive and can park again.
            #expect(try client.request("GET", "/again").text == "late /again")
        }
    }

    @Test func answerRacingTheEndOfHandleIsNeverLost() throws {
        try withServer(handler: { _, responder in
            runLater { responder.respond(.text("raced")) }
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            for _ in 0..<200 {
                #expect(try client.request("GET", "/race").text == "raced")
            }
            #expect(eventually { server.suspendedConnections == 0 })
        }
    }

    @Test func twoHundredParkedRequestsAreAllAnswered() throws {
        let waiters = Shared<[Responder]>([])
        try withServer(handler: { request, responder in
            waiters.update { $0.append(responder) }
        }) { server in
            let clients = try (0..<200).map { _ in try TestHTTPClient(port: server.port) }
            for (index, client) in clients.enumerated() {
                try client.sendRequest("GET", "/poll/\(index)")
            }
            #expect(eventually { server.suspendedConnections == 200 })
            #expect(server.openConnections == 200)
            let parked = waiters.update { list in
                defer { list = [] }
                return list
            }
            runLater {
                for responder in parked {
                    responder.respond(.text("changed"))
                }
            }
            for client in clients {
                let response = try client.readResponse()
                #expect(response.status == 200 && response.text == "changed")
            }
            #expect(eventually { server.suspendedConnections == 0 })
        }
    }

    @Test func onTerminationFiresOnceTheAnswerIsSent() throws {
        let ended = Shared(0)
        try withServer(handler: { _, responder in
            responder.onTermination { ended.update { $0 += 1 } }
            responder.respond(.text("done"))
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            _ = try client.request("GET", "/")
            #expect(eventually { ended.value == 1 })
        }
    }

    @Test func parkedClientLeavingEndsTheRequestAndLaterAnswersAreIgnored() throws {
        let parked = Shared<Responder?>(nil)
        let ended = Shared(false)
        try withServer(handler: { _, responder in
            responder.onTermination { ended.update { $0 = true } }
            parked.update { $0 = responder }
        }) { server in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/poll")
            #expect(eventually { server.suspendedConnections == 1 })
            client.close()
            #expect(eventually(timeout: .seconds(2)) { ended.value })
            #expect(eventually { server.suspendedConnections == 0 })
            #expect(parked.value?.respond(.text("too late")) == false)
            #expect(eventually { server.openConnections == 0 })
        }
    }

    /// Without the disconnect watcher, libmicrohttpd does not see a suspended client leave: the request only
    /// ends when the answer is written to the dead socket.
    @Test func withoutDetectionAParkedClientLeavingIsNoticedOnlyAfterTheAnswer() throws {
        let parked = Shared<Responder?>(nil)
        let ended = Shared(false)
        try withServer(
            { $0.detectsDisconnectedParkedClients = false },
            handler: { _, responder in
                responder.onTermination { ended.update { $0 = true } }
                parked.update { $0 = responder }
            }
        ) { server in
            let client = try TestHTTPClient(port: server.port)
            try client.sendRequest("GET", "/poll")
            #expect(eventually { server.suspendedConnections == 1 })
            client.close()
            #expect(!eventually(timeout: .milliseconds(300)) { ended.value })
            #expect(server.suspendedConnections == 1)
            #expect(parked.value?.respond(.text("into the void")) == true)
            #expect(eventually(timeout: .seconds(2)) { ended.value })
        }
    }
}
