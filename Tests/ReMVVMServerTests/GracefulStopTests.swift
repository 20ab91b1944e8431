import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Graceful stop over HTTP")
    struct GracefulStopTests {
        @Test func stopAnswersParkedPollsWithTheirCursorAndEndsStreams() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let poll = try await api.startPoll(session, query: "?views=counter&since=\(session.version)&wait=30s")
                let (_, stream) = try await api.openEvents(session, query: "?views=counter")
                defer { stream.close() }
                #expect(try await stream.nextEvent()?.event == "snapshot")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))

                let stopping = Task { try await server.stop() }
                let response = try await poll.response()
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["views"] == [:])
                #expect(body["from"]?.stringValue == session.version)
                #expect(body["to"]?.stringValue == session.cursor(1))
                let end = try #require(try await stream.nextEvent())
                #expect(end.event == "end")
                #expect(try end.json()["reason"] == "shutdown")
                #expect(try await stream.nextEventBlock() == nil)
                try await stopping.value
            }
        }
    }
}
