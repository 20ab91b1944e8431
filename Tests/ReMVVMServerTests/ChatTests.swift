import ExampleApp
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// The example app's chat over HTTP: rooms are topics, so one session's post changes the others' views.
    @Suite("Chat between sessions over HTTP")
    struct ChatTests {
        /// How soon a member's parked poll must be answered after another member's post: the post is delivered
        /// inside the poster's dispatch, so this is mostly the loopback round trips.
        static let wakeBound: Duration = .milliseconds(100)

        static func join(_ room: String, as name: String) -> JSONValue {
            ["type": "chat/join", "payload": ["room": .string(room), "name": .string(name)]]
        }

        static func post(_ text: String) -> JSONValue {
            ["type": "chat/post", "payload": ["text": .string(text)]]
        }

        /// The session's `chat` view.
        static func chat(_ session: TestSession, api: APIClient) async throws -> JSONValue {
            try #require(try await api.read(session, query: "?views=chat").json()["views"]?["chat"])
        }

        /// The messages of a `chat` view as `from: text` lines.
        static func lines(_ chat: JSONValue) -> [String] {
            guard case .array(let messages) = chat["messages"] else { return [] }
            return messages.map { "\($0["from"]?.stringValue ?? "?"): \($0["text"]?.stringValue ?? "?")" }
        }

        /// Dispatches and returns the answer's version (a cursor).
        static func dispatched(_ action: JSONValue, to session: TestSession, api: APIClient) async throws -> String {
            let response = try await api.dispatch(session, action)
            #expect(response.status == 200)
            #expect(try response.json()["results"] == ["applied"], "\(response.text)")
            return try #require(try response.json()["version"]?.stringValue)
        }

        @Test func twoSessionsInOneRoomHearEachOtherAndAPollWakesPromptly() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let (ada, bob) = (try await api.createSession(), try await api.createSession())
                #expect(try await Self.chat(ada, api: api) == ["room": .null, "messages": []])
                _ = try await Self.dispatched(Self.join("lobby", as: "Ada"), to: ada, api: api)
                var since = try await Self.dispatched(Self.join("lobby", as: "Bob"), to: bob, api: api)
                _ = try await Self.dispatched(Self.post("hello Bob"), to: ada, api: api)
                #expect(Self.lines(try await Self.chat(bob, api: api)) == ["Ada: hello Bob"])
                since = try #require(try await api.read(bob).storeVersion)

                // Bob's poll on the chat view wakes when Ada posts, with the message. A busy test run may delay
                // one round trip, so up to two more posts get their chance to show the bound.
                var latencies: [Duration] = []
                repeat {
                    let poll = try await api.startPoll(bob, query: "?views=chat&since=\(since)&wait=10s")
                    #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                    let text = "post \(latencies.count)"
                    let dispatch = try await api.start(
                        "POST", ada.path + "/actions", headers: [ada.bearer, ("Content-Type", "application/json")],
                        body: Self.post(text).serialized())
                    let response = try await poll.response()
                    #expect(try await dispatch.response().status == 200)
                    #expect(response.status == 200)
                    #expect(response.text.contains(text), "the poll's answer lacks the message: \(response.text)")
                    latencies.append(dispatch.sentAt.duration(to: response.receivedAt))
                    since = try #require(try response.json()["to"]?.stringValue)
                } while latencies.last! >= Self.wakeBound && latencies.count < 3
                #expect(latencies.last! < Self.wakeBound, "answered \(latencies) after the post")
                let expected = ["Ada: hello Bob"] + latencies.indices.map { "Ada: post \($0)" }
                #expect(Self.lines(try await Self.chat(bob, api: api)) == expected)
                #expect(Self.lines(try await Self.chat(ada, api: api)) == expected)
            }
        }

        @Test func thePostersAnswerShowsItsOwnMessage() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let ada = try await api.createSession()
                _ = try await Self.dispatched(Self.join("lobby", as: "Ada"), to: ada, api: api)
                for text in ["one", "two"] {
                    let answer = try await api.dispatch(ada, Self.post(text), query: "?views=chat")
                    let body = try answer.json()
                    #expect(body["results"] == ["applied"])
                    let expected = text == "one" ? ["Ada: one"] : ["Ada: one", "Ada: two"]
                    #expect(Self.lines(try #require(body["views"]?["chat"])) == expected)
                    // The version named is the one shown: the post's, then its message's.
                    #expect(answer.storeVersion == body["version"]?.stringValue)
                    #expect(answer.storeVersion == (try await api.read(ada)).storeVersion)
                }
            }
        }

        @Test func concurrentPostsEndInTheSameOrderInEveryMembersView() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let members = [try await api.createSession(), try await api.createSession()]
                for (index, member) in members.enumerated() {
                    _ = try await Self.dispatched(Self.join("busy", as: "m\(index)"), to: member, api: api)
                }
                // 2 × 20 posts at once, each on a connection of its own.
                var pending: [PendingResponse] = []
                for number in 0..<20 {
                    for (index, member) in members.enumerated() {
                        pending.append(
                            try await api.start(
                                "POST", member.path + "/actions",
                                headers: [member.bearer, ("Content-Type", "application/json")],
                                body: Self.post("\(index).\(number)").serialized()))
                    }
                }
                for request in pending { #expect(try await request.response().status == 200) }
                var views: [[String]] = []
                #expect(
                    try await eventually {
                        views = []
                        for member in members { views.append(Self.lines(try await Self.chat(member, api: api))) }
                        return views.allSatisfy { $0.count == 40 }
                    })
                #expect(views[0] == views[1])
                let expected = Set((0..<2).flatMap { index in (0..<20).map { "m\(index): \(index).\($0)" } })
                #expect(Set(views[0]) == expected)
            }
        }

        @Test func leavingStopsTheMessagesAndAnotherRoomHearsNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let (ada, bob, eve) = (
                    try await api.createSession(), try await api.createSession(), try await api.createSession()
                )
                _ = try await Self.dispatched(Self.join("one", as: "Ada"), to: ada, api: api)
                _ = try await Self.dispatched(Self.join("one", as: "Bob"), to: bob, api: api)
                _ = try await Self.dispatched(Self.join("two", as: "Eve"), to: eve, api: api)
                _ = try await Self.dispatched(Self.post("first"), to: ada, api: api)
                _ = try await Self.dispatched(["type": "chat/leave"], to: bob, api: api)
                _ = try await Self.dispatched(Self.post("second"), to: ada, api: api)
                #expect(Self.lines(try await Self.chat(ada, api: api)) == ["Ada: first", "Ada: second"])
                #expect(try await Self.chat(bob, api: api) == ["room": .null, "messages": []])
                #expect(try await Self.chat(eve, api: api) == ["room": "two", "messages": []])
                // Joining again shows the room's recent messages first.
                _ = try await Self.dispatched(Self.join("one", as: "Bob"), to: bob, api: api)
                #expect(Self.lines(try await Self.chat(bob, api: api)) == ["Ada: first", "Ada: second"])
            }
        }

        /// Issue 44: a room nobody is in any more, with no message newer than its retention, is forgotten by the
        /// server's housekeeper, and a deleted session no longer keeps its room.
        @Test func theHousekeeperForgetsARoomNobodyIsIn() async throws {
            var topics = TopicConfiguration()
            topics.retention = .zero
            let hub = TopicHub(configuration: topics)
            let app = ExampleApp.definition(services: TestApp.services, topics: hub)
            try await withTestServer(app) { server in
                let api = try server.client()
                let (ada, bob) = (try await api.createSession(), try await api.createSession())
                _ = try await Self.dispatched(Self.join("left", as: "Ada"), to: ada, api: api)
                _ = try await Self.dispatched(Self.join("deleted", as: "Bob"), to: bob, api: api)
                _ = try await Self.dispatched(Self.post("hello"), to: ada, api: api)
                _ = try await Self.dispatched(Self.post("hello"), to: bob, api: api)
                #expect(hub.topicCount == 2)
                _ = try await Self.dispatched(["type": "chat/leave"], to: ada, api: api)
                #expect(await eventually { hub.topicCount == 1 })
                #expect(hub.history(of: "chat/left").isEmpty)
                #expect(try await api.delete(bob).status == 204)
                #expect(await eventually { hub.topicCount == 0 })
            }
        }

        @Test(
            arguments: [
                ([post("too early")], "join a room before posting"),
                ([join("", as: "Ada")], "the room is required"),
                ([join("lobby", as: "  ")], "the name is required"),
                ([join(String(repeating: "r", count: 65), as: "Ada")], "the room is longer than 64 characters"),
                ([join("lobby", as: String(repeating: "n", count: 65))], "the name is longer than 64 characters"),
                ([join("lobby", as: "Ada"), post("")], "the text is empty"),
                (
                    [join("lobby", as: "Ada"), post(String(repeating: "t", count: 1_001))],
                    "the text is longer than 1000 characters"
                ),
            ] as [([JSONValue], String)])
        func badChatActionsAreBlockedWithAReason(_ actions: [JSONValue], reason: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, .array(actions))
                #expect(response.status == 200)
                let results = try response.json()["results"]
                #expect(results?[actions.count - 1]?["blocked"]?.stringValue == reason, "\(response.text)")
            }
        }
    }
}
