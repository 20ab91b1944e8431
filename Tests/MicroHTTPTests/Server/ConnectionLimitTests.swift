import HTTPTestClient
import MicroHTTP
import Testing

/// The total connection limit (the per-client one is in ``LimitsTests``).
@Suite("Connection limit")
struct ConnectionLimitTests {
    @Test func aConnectionBeyondTheTotalLimitIsNotServedUntilASlotFrees() throws {
        try withServer(
            { $0.connectionLimit = 2 },
            handler: { request, responder in
                if request.path != "/poll" { responder.respond(.text("ok")) }
            }
        ) { server in
            let parked = try (0..<2).map { _ in try TestHTTPClient(port: server.port) }
            for client in parked {
                try client.sendRequest("GET", "/poll")
            }
            #expect(eventually { server.suspendedConnections == 2 })
            // libmicrohttpd either closes it or leaves it unaccepted in the backlog: either way, no answer.
            let third = try TestHTTPClient(port: server.port, timeout: .seconds(1))
            try? third.sendRequest("GET", "/now")
            #expect((try? third.readResponse()) == nil)
            third.close()
            // A connection that goes away frees its slot for the next client.
            parked[0].close()
            #expect(
                eventually(timeout: .seconds(10)) {
                    guard let client = try? TestHTTPClient(port: server.port, timeout: .seconds(1)) else {
                        return false
                    }
                    defer { client.close() }
                    return (try? client.request("GET", "/now"))?.status == 200
                })
        }
    }
}
