import HTTPTestClient
import MicroHTTP
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
}
