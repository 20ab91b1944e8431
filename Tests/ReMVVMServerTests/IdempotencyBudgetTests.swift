import ExampleApp
import Foundation
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Synchronization
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// An `Idempotency-Key` keeps its answer's results and version, never its views: 60 keyed dispatches on a
    /// session with a 4 MB view once kept 60 copies of the view (240 MB); now a few kilobytes, and a replay still
    /// answers the same status and version, with the views as they were, and applies nothing again.
    @Suite("Idempotency budget")
    struct IdempotencyBudgetTests {
        /// `test/grow`: logs in a user whose first name is `bytes` long, so the `greeting` view is that large.
        struct Grow: StoreAction {
            static let wireName = "test/grow"
            var bytes: Int
        }

        static var definition: StoreDefinition<AppState> {
            StoreDefinition(
                initialState: AppState(),
                reducer: AnyReducer(
                    ExampleApp.reducer,
                    AnyReducer(
                        .on(Grow.self) { state, action in
                            var state = state
                            state.user = UserState()
                            state.user.firstName = String(repeating: "x", count: action.bytes)
                            state.user.loggedIn = true
                            return state
                        })
                ),
                middleware: ExampleApp.middleware,
                projections: ExampleApp.projections,
                clientActions: ExampleApp.clientActions + [Grow.self],
                services: TestApp.services
            )
        }

        /// A view just under the largest view budget a server may be given (2 MiB).
        static let viewBytes = 2_000_000

        @Test func sixtyKeyedDispatchesOnALargeViewKeepTheKeysWithinTheirBudget() async throws {
            try await withTestServer(Self.definition) {
                $0.maxViewBytes = ServerConfiguration.maxViewBytesLimit
            } _: { server in
                let api = try server.client()
                let session = try await api.createSession()
                let grown = try await api.dispatch(
                    session, ["type": "test/grow", "payload": ["bytes": .int(Int64(Self.viewBytes))]])
                #expect(grown.status == 200)
                let live = try #require(
                    server.server.api.sessions.find(id: session.id, token: Substring(session.token)))
                let residentBefore = residentBytes()

                // Over a plain connection: the client's contract check would parse each 2 MB answer.
                let plain = try AsyncHTTPConnection(port: server.port)
                let headers = [session.bearer, ("Content-Type", "application/json")]
                let increase = TestActions.increase.serialized()
                var first: TestResponse?
                for index in 0..<60 {
                    let response = try await plain.request(
                        "POST", "\(session.path)/actions?views=greeting,counter",
                        headers: headers + [("Idempotency-Key", "key \(index)")], body: increase)
                    #expect(response.status == 200)
                    if index == 0 {
                        #expect(response.body.count > Self.viewBytes)
                        first = response
                    }
                }

                let held = live.idempotency.withLock { $0.heldBytes }
                let budget = server.server.api.configuration.maxIdempotentAnswerSize
                #expect(held <= 60 * (budget + 32), "the keys hold \(held) bytes")
                #expect(held < 60 * 512, "the keys hold \(held) bytes: views were kept")
                let growth = residentBytes() - residentBefore
                #expect(growth < 100 << 20, "RSS grew by \(growth >> 20) MiB over 60 keyed dispatches")

                // A replay: same status, version and results, the views as they were at that version.
                let original = try #require(first)
                let replay = try await plain.request(
                    "POST", "\(session.path)/actions?views=greeting,counter",
                    headers: headers + [("Idempotency-Key", "key 0")], body: increase)
                #expect(replay.status == 200)
                #expect(replay.storeVersion == original.storeVersion)
                #expect(replay.body == original.body)
                let last = try await api.dispatch(
                    session, TestActions.increase, query: "?views=counter", headers: [("Idempotency-Key", "key 59")])
                #expect(last.status == 200)
                #expect(try last.json()["views"]?["counter"] == ["counter": "60"])
                #expect(try last.json()["results"] == ["applied"])

                let read = try await api.request("GET", "\(session.path)?views=counter", headers: [session.bearer])
                #expect(try read.json()["views"]?["counter"] == ["counter": "60"], "a replay applied again")
            }
        }
    }
}

/// This process's resident memory (VmRSS), in bytes.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return kilobytes * 1024
}
