import HTTPTestClient
import InMemoryLogging
import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    /// The bearer token proves ownership of a session, so the server never writes it to its log, whatever
    /// the request and at every level.
    @Suite("Secrets in logs")
    struct SecretsInLogsTests {
        @Test func theTokenIsNeverLoggedAtAnyLevel() async throws {
            let handler = InMemoryLogHandler()
            var logger = Logger(label: "remvvm.test") { _ in handler }
            logger.logLevel = .trace
            let server = StoreServer(TestApp.definition(), configuration: TestServer.configuration, logger: logger)
            try server.start()
            let test = TestServer(server: server, log: ExchangeLog())
            do {
                let api = try test.client()
                let session = try await api.createSession()
                let cookie = ("Cookie", "remvvm_token=\(session.token)")
                _ = try await api.dispatch(session, TestActions.increase, query: "?views=counter")
                _ = try await api.dispatch(session, body: Array("{".utf8))
                _ = try await api.dispatch(session, ["type": "no/such"])
                _ = try await api.read(session, query: "?views=nope")
                _ = try await api.poll(session, query: "?since=\(session.version)&wait=10ms")
                _ = try await api.request(
                    "POST", session.path + "/actions", headers: [cookie, ("Origin", "http://evil.example")],
                    body: TestActions.increase.serialized())
                _ = try await api.request("GET", "/v1/sessions/unknown", headers: [session.bearer])
                let (_, stream) = try await api.openEvents(session, query: "?views=counter")
                stream.close()
                _ = try await api.delete(session)
                _ = try await api.read(session)
                try await test.stop()
                let entries = handler.entries
                #expect(entries.contains { "\($0.message)".contains("session created") })
                for entry in entries {
                    let text = "\(entry.message) \(entry.metadata)"
                    #expect(!text.contains(session.token), "the token is in the log line '\(text)'")
                }
            } catch {
                try await test.stop()
                throw error
            }
        }
    }
}
