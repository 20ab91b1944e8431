import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

extension EndToEnd {
    /// Headers and parameters outside what public/openapi.yaml allows are refused with 400, never half-used
    /// (found by scripts/api-fuzz).
    @Suite("Header validation over HTTP")
    struct HeaderValidationTests {
        @Test(arguments: ["e.0", "W/\"e.0\""])
        func anIfMatchThatIsNotAStrongTagIs400(tag: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let bare = tag.replacing("e.0", with: session.version)
                let response = try await api.dispatch(session, TestActions.increase, headers: [("If-Match", bare)])
                #expect(response.status == 400)
                #expect(try response.json()["type"] == "/problems/bad-if-match")
            }
        }

        @Test func anIdempotencyKeyOutsideVisibleAsciiIs400() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(
                    session, TestActions.increase, headers: [("Idempotency-Key", "ключ")])
                #expect(response.status == 400)
                #expect(try response.json()["type"] == "/problems/bad-idempotency-key")
                #expect(
                    try await api.read(session, query: "?views=counter").json()["version"]?.stringValue
                        == session.version)
            }
        }

        @Test func anEmptyViewNameInAListIs400AndAnEmptyListIsEveryView() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                for query in ["?views=counter,", "?views=,", "?views=counter,,quote"] {
                    let response = try await api.read(session, query: query)
                    #expect(response.status == 400, "\(query)")
                    #expect(try response.json()["type"] == "/problems/unknown-view")
                }
                let all = try await api.read(session, query: "?views=")
                #expect(all.status == 200)
                #expect(try all.json()["views"]?.members.count == 6)
            }
        }

        @Test func aMalformedSinceIs400EvenWithALastEventID() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (head, stream) = try await api.openEvents(
                    session, query: "?since=nonsense", headers: [("Last-Event-ID", session.version)])
                stream.close()
                #expect(head.status == 400)
                #expect(try head.json()["type"] == "/problems/bad-cursor")
            }
        }

        @Test func anEmptyLastEventIDLeavesSinceInForce() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.increase)
                let (head, stream) = try await api.openEvents(
                    session, query: "?views=counter&since=\(session.version)", headers: [("Last-Event-ID", "")])
                defer { stream.close() }
                #expect(head.status == 200)
                // The changes since `since`, not a snapshot.
                let first = try #require(try await stream.nextEvent())
                #expect(first.event == "patch")
                #expect(try first.json()["from"]?.stringValue == session.version)
            }
        }
    }
}
