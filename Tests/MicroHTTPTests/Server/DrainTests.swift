import HTTPTestClient
import MicroHTTP
import Synchronization
import Testing

/// A draining server refuses new connections at once and answers the requests of the open ones, each answer
/// closing its connection: nothing sent to it is cut unanswered.
@Suite("Draining before a stop")
struct DrainTests {
    @Test func aDrainingServerRefusesNewConnectionsAndClosesOpenOnesWithTheirAnswer() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threadPoolSize: 2),
            handler: ClosureHandler { _, responder in responder.respond(.text("hi")) })
        try server.start()
        defer { server.stop() }
        let open = try TestHTTPClient(port: server.port)
        let before = try open.request("GET", "/")
        #expect(before.status == 200)
        #expect(before.header("connection")?.lowercased() != "close")

        // The open connection is idle, so the drain waits its whole (short) grace for it.
        #expect(!server.drain(grace: .milliseconds(50)))
        #expect(throws: (any Error).self) { try TestHTTPClient(port: server.port) }

        let during = try open.request("GET", "/")
        #expect(during.status == 200)
        #expect(during.text == "hi")
        #expect(during.header("connection")?.lowercased() == "close")
        // Answered and closed: nothing is left open to cut.
        #expect(server.drain(grace: .seconds(5)))
    }

    @Test func aDrainClosesIdleKeepAliveConnectionsAndAnswersBusyOnesWithClose() throws {
        let parked = Mutex<Responder?>(nil)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0, threadPoolSize: 1),
            handler: ClosureHandler { request, responder in
                // `/park` is answered later, by the test: a request in progress when the drain starts.
                if request.path == "/park" {
                    parked.withLock { $0 = responder }
                } else {
                    _ = responder.respond(.text("hi"))
                }
            })
        try server.start()
        defer { server.stop() }
        let idle = try TestHTTPClient(port: server.port)
        #expect(try idle.request("GET", "/").header("connection")?.lowercased() != "close")
        let busy = try TestHTTPClient(port: server.port)
        try busy.sendRequest("GET", "/park")
        #expect(eventually { parked.withLock { $0 != nil } })

        let started = ContinuousClock.now
        // On a thread of its own (it blocks), not a task, which the blocking reads below could starve.
        let drained = Mutex<Bool?>(nil)
        runLater {
            let result = server.drain(grace: .seconds(5))
            drained.withLock { $0 = result }
        }
        // The idle connection is closed by the server, with no request on it, within libmicrohttpd's shortest
        // inactivity timeout (1 s), long before the grace ends.
        #expect(idle.waitForClose(timeout: .seconds(3)))
        #expect(ContinuousClock.now - started < Duration.seconds(3))
        // The busy one is answered, and its answer closes it.
        let waiting = parked.withLock { $0 }
        #expect(waiting?.respond(.text("late")) == true)
        let answer = try busy.readResponse()
        #expect(answer.status == 200)
        #expect(answer.text == "late")
        #expect(answer.header("connection")?.lowercased() == "close")
        #expect(busy.waitForClose(timeout: .seconds(3)))
        #expect(eventually { drained.withLock { $0 } == true })
    }
}
