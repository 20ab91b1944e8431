import ExampleApp
import Foundation
import HTTPTestClient
import PostgresTestSupport
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// The example app's chat on two servers in one process sharing one PostgreSQL database: a room's messages
/// get their order from the database's topic log, NOTIFY wakes the other node, and each node delivers to its
/// own members, so members on different nodes hear each other in one order.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class TopicTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// Two nodes with their topic listeners up.
    func startNodes() async throws -> (Node, Node) {
        let nodeA = try Node.start("node-a", on: database)
        let nodeB = try Node.start("node-b", on: database)
        try await database.waitForTopicListeners(2)
        return (nodeA, nodeB)
    }

    /// Waits (at most `timeout`) until `condition` holds; whether it did.
    func eventually(within timeout: Duration = .seconds(10), _ condition: () throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while try !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    @Test func membersOnDifferentNodesHearEachOtherInOneOrder() async throws {
        let (nodeA, nodeB) = try await startNodes()
        let (ada, bob) = try await onOwnThread {
            let (a, b) = (try nodeA.client(), try nodeB.client())
            let ada = try a.createSession()
            let bob = try b.createSession()
            try a.chat(ada, .join("lobby", as: "Ada"))
            try b.chat(bob, .join("lobby", as: "Bob"))
            try a.chat(ada, .post("hello from A"))
            try b.chat(bob, .post("hello from B"))
            try a.chat(ada, .post("again from A"))
            return (ada, bob)
        }
        let expected = ["Ada: hello from A", "Bob: hello from B", "Ada: again from A"]
        let a = try nodeA.client()
        let b = try nodeB.client()
        #expect(try await eventually { try a.lines(ada) == expected && b.lines(bob) == expected })
        #expect(try a.lines(ada) == expected)
        #expect(try b.lines(bob) == expected)
        // Each node holds its own member: nothing moved.
        #expect(nodeA.server.sessionCount == 1 && nodeB.server.sessionCount == 1)
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func concurrentPostsOnBothNodesEndInTheSameOrderInEveryMembersView() async throws {
        let (nodeA, nodeB) = try await startNodes()
        let nodes = [nodeA, nodeA, nodeB, nodeB]
        let members = try await onOwnThread {
            try nodes.enumerated().map { index, node in
                let client = try node.client()
                let session = try client.createSession()
                try client.chat(session, .join("busy", as: "m\(index)"))
                return session
            }
        }
        // Four members, two on each node, post ten messages each at once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, member) in members.enumerated() {
                let node = nodes[index]
                group.addTask {
                    try await onOwnThread {
                        let client = try node.client()
                        for n in 0..<10 { try client.chat(member, .post("\(index)-\(n)")) }
                    }
                }
            }
            try await group.waitForAll()
        }
        let clients = try nodes.map { try $0.client() }
        func views() throws -> [[String]] {
            try members.indices.map { try clients[$0].lines(members[$0]) }
        }
        #expect(try await eventually { try views().allSatisfy { $0.count == 40 } })
        let seen = try views()
        #expect(Set(seen.map { $0 }).count == 1, "the members' views differ: \(seen)")
        let first = try #require(seen.first)
        #expect(Set(first).count == 40, "a message is missing or repeated: \(first)")
        // Each poster's own messages keep the order it posted them in.
        for index in members.indices {
            let own = first.filter { $0.hasPrefix("m\(index): ") }
            #expect(own == (0..<10).map { "m\(index): \(index)-\($0)" })
        }
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aMemberTakenOverByTheOtherNodeKeepsEveryMessageOnceInOrder() async throws {
        let (nodeA, nodeB) = try await startNodes()
        let (ada, cat) = try await onOwnThread {
            let (a, b) = (try nodeA.client(), try nodeB.client())
            let ada = try b.createSession()
            let cat = try a.createSession()
            try b.chat(ada, .join("move", as: "Ada"))
            try a.chat(cat, .join("move", as: "Cat"))
            for n in 0..<5 { try b.chat(ada, .post("before \(n)")) }
            try a.chat(cat, .post("cat on A"))
            return (ada, cat)
        }
        // Ada keeps posting on node B while node B takes Cat over from node A.
        async let posts: Void = onOwnThread {
            let b = try nodeB.client()
            for n in 0..<20 { try b.chat(ada, .post("during \(n)")) }
        }
        let takenOver = try await onOwnThread { try nodeB.client().lines(cat) }
        try await posts
        let b = try nodeB.client()
        try await onOwnThread { try nodeB.client().chat(cat, .post("cat on B")) }
        let expected =
            (0..<5).map { "Ada: before \($0)" } + ["Cat: cat on A"] + (0..<20).map { "Ada: during \($0)" }
            + ["Cat: cat on B"]
        #expect(
            try await eventually { try b.lines(cat).count >= expected.count && b.lines(ada).count >= expected.count })
        #expect(try b.lines(cat) == expected, "taken over with \(takenOver)")
        #expect(try b.lines(ada) == expected)
        #expect(nodeB.server.sessionCount == 2)
        #expect(try await eventually { nodeA.server.sessionCount == 0 })
        try await nodeA.stop()
        try await nodeB.stop()
    }

    @Test func aMemberAwayLongerThanTheRetainedHistoryIsToldOfTheGapWhenTakenOver() async throws {
        let (nodeA, nodeB) = try await startNodes()
        let cat = try await onOwnThread {
            let a = try nodeA.client()
            let cat = try a.createSession()
            try a.chat(cat, .join("far", as: "Cat"))
            try a.chat(cat, .post("cat 0"))
            return cat
        }
        // Node A stops (Cat's session released, positions stored); 60 posts follow, more than the 50 retained.
        try await nodeA.stop()
        let ada = try await onOwnThread {
            let b = try nodeB.client()
            let ada = try b.createSession()
            try b.chat(ada, .join("far", as: "Ada"))
            for n in 0..<60 { try b.chat(ada, .post("ada \(n)")) }
            return ada
        }
        let b = try nodeB.client()
        // Taken over: the 50 retained messages, after a gap.
        let expected = (10..<60).map { "Ada: ada \($0)" }
        #expect(try await eventually { try b.lines(cat) == expected })
        #expect(try b.lines(ada) == expected)
        // Told: a topic/gap went through its middleware and reducers (the example app shows no notice).
        #expect(nodeB.topics.statistics.gaps == 1)
        try await nodeB.stop()
    }

    @Test func theDatabaseOrdersATopicAndKeepsItsRetainedHistory() throws {
        let storage = try PostgresSessionStorage(url: database.url, node: "node-a", listensForTakeovers: false)
        defer { storage.close() }
        let other = try PostgresSessionStorage(url: database.url, node: "node-b", listensForTakeovers: false)
        defer { other.close() }
        var sequences: [UInt64] = []
        for n in 0..<6 {
            let log = n.isMultiple(of: 2) ? storage : other
            sequences.append(try log.append(topic: "t", action: Data("\(n)".utf8), retaining: 3))
        }
        #expect(sequences == [1, 2, 3, 4, 5, 6])
        let read = try other.messages(of: "t", after: 0)
        #expect(read.last == 6)
        #expect(read.entries.map(\.sequence) == [4, 5, 6])
        #expect(read.entries.map { String(decoding: $0.action, as: UTF8.self) } == ["3", "4", "5"])
        #expect(try storage.messages(of: "t", after: 5).entries.map(\.sequence) == [6])
        #expect(try storage.messages(of: "none", after: 0) == (0, []))
    }

    /// The topics with a counter row, and how many messages each keeps.
    func storedTopics() throws -> [String: Int] {
        let connection = try database.connect()
        let rows = try connection.execute(
            """
            SELECT c.topic, (SELECT count(*) FROM topic_messages m WHERE m.topic = c.topic)::bigint
            FROM topic_counters c
            """)
        var topics: [String: Int] = [:]
        for row in 0..<rows.count { topics[try rows.text(row, 0)] = Int(try rows.int64(row, 1)) }
        let orphans = try connection.execute(
            "SELECT count(*)::bigint FROM topic_messages m WHERE NOT EXISTS (SELECT 1 FROM topic_counters c WHERE c.topic = m.topic)"
        )
        if try orphans.int64(0, 0) > 0 { topics["(orphans)"] = Int(try orphans.int64(0, 0)) }
        return topics
    }

    @Test func anIdleTopicsCounterAndMessagesAreDeletedAndAFollowedOneKept() async throws {
        var configuration = TopicConfiguration()
        configuration.retention = .zero  // Idle as soon as nobody follows it.
        let hub = TopicHub(configuration: configuration)
        let app = ExampleApp.definition(topics: hub)
        let storage = try PostgresSessionStorage(
            url: database.url, node: "node-a", listensForTakeovers: false, logger: Node.quiet)
        defer { storage.close() }
        try hub.attach(storage, actions: app.actions)
        let member = app.makeStore()
        try member.dispatch(ChatAction.Join(room: "lobby", name: "Ada"))
        for room in ["lobby", "empty"] {
            try hub.publish(ChatAction.Message(from: "Bob", text: "hi"), to: "chat/\(room)")
            try hub.publish(ChatAction.Message(from: "Bob", text: "again"), to: "chat/\(room)")
        }
        #expect(try storedTopics() == ["chat/lobby": 2, "chat/empty": 2])

        #expect(try hub.tidy() == 1)
        #expect(try storedTopics() == ["chat/lobby": 2])
        // A closed (deleted) session no longer keeps its room; published to again, a topic starts over.
        member.close()
        #expect(try hub.tidy() == 1)
        #expect(try storedTopics() == [:])
        #expect(try hub.publish(ChatAction.Message(from: "Bob", text: "back"), to: "chat/lobby") == 1)
    }
}

/// A chat action as the tests send it.
enum ChatCall {
    case join(String, as: String)
    case post(String)

    var body: [UInt8] {
        let object: [String: Any] =
            switch self {
            case .join(let room, let name): ["type": "chat/join", "payload": ["room": room, "name": name]]
            case .post(let text): ["type": "chat/post", "payload": ["text": text]]
            }
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }
}

extension NodeClient {
    /// Dispatches a chat action, which must be applied.
    func chat(_ session: ClusterSession, _ call: ChatCall) throws {
        let response = try http.request(
            "POST", "\(session.path)/actions", headers: [session.authorization, ("Content-Type", "application/json")],
            body: call.body)
        guard response.status == 200, response.text.contains(#"["applied"]"#) else {
            throw TestDatabaseError("chat answered \(response.status): \(response.text)")
        }
    }

    /// The session's chat messages as `from: text` lines.
    func lines(_ session: ClusterSession) throws -> [String] {
        let response = try http.request("GET", "\(session.path)?views=chat", headers: [session.authorization])
        guard response.status == 200 else { throw TestDatabaseError("read answered \(response.status)") }
        let views = try response.json()["views"] as? [String: Any]
        let chat = views?["chat"] as? [String: Any]
        let messages = chat?["messages"] as? [[String: Any]] ?? []
        return messages.map { "\($0["from"] as? String ?? "?"): \($0["text"] as? String ?? "?")" }
    }

}
