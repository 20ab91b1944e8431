import ExampleApp
import Foundation
import GRDB
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMSQLite
import Testing

@testable import ReMVVMPersistence

/// Topics with durable sessions in SQLite: a session's log holds what it received from its topics, and the
/// topics' retained history outlives the process.
@Suite final class DurableTopicsTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("remvvm-topics-\(UUID().uuidString)").path
    let log = LogCapture()
    private let opened = Opened()

    deinit {
        opened.stopAll()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// One run of the server: a new hub, the SQLite file, and its sessions restored.
    func start(snapshotEvery: Int) throws -> (StoreDefinition<AppState>, DurableSessions<AppState>, [RestoredSession]) {
        let storage = try SQLiteSessionStorage(directory: directory, logger: log.logger)
        let definition = exampleApp()
        var configuration = DurabilityConfiguration()
        configuration.snapshotEvery = snapshotEvery
        let sessions = DurableSessions(definition, storage: storage, configuration: configuration, logger: log.logger)
        opened.add(sessions)
        let restored = sessions.restore()
        for session in restored { session.resume() }
        return (definition, sessions, restored)
    }

    func lines(_ store: Store<AppState>) -> [String] {
        store.state.chat.messages.map { "\($0.from): \($0.text)" }
    }

    @Test(arguments: [1, 2, 1_000])
    func aRestoredMemberNeitherLosesNorRepeatsAMessageAndCatchesUp(snapshotEvery: Int) async throws {
        let (app, first, _) = try start(snapshotEvery: snapshotEvery)
        let record = newRecord()
        let member = first.makeTypedStore(for: record)
        try member.dispatch(ChatAction.Join(room: "lobby", name: "Ada"))
        for text in ["one", "two", "three"] {
            try app.hub.publish(ChatAction.Message(from: "Bob", text: text), to: "chat/lobby")
        }
        #expect(lines(member) == ["Bob: one", "Bob: two", "Bob: three"])
        #expect(await first.durable() == nil)
        // The session goes away (its store closes); the room goes on without it; then the process dies.
        member.close()
        for text in ["four", "five"] {
            try app.hub.publish(ChatAction.Message(from: "Bob", text: text), to: "chat/lobby")
        }
        first.stop(snapshotting: false)

        let (again, _, restored) = try start(snapshotEvery: snapshotEvery)
        let store = try typed(try #require(restored.first))
        #expect(store.subscribedTopics == ["chat/lobby"])
        #expect(lines(store) == ["Bob: one", "Bob: two", "Bob: three", "Bob: four", "Bob: five"])
        // The topic's order goes on where the stored history ends.
        #expect(again.hub.history(of: "chat/lobby").map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(try again.hub.publish(ChatAction.Message(from: "Bob", text: "six"), to: "chat/lobby") == 6)
        #expect(lines(store).last == "Bob: six")
        #expect(lines(store).count == 6)
    }

    /// The rows of `topic_log`, per topic.
    func storedTopics() throws -> [String: Int] {
        let rows = try DatabaseQueue(path: directory + "/sessions.sqlite").read { db in
            try Row.fetchAll(db, sql: "SELECT topic, count(*) AS n FROM topic_log GROUP BY topic")
        }
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["topic"] as String, $0["n"] as Int) })
    }

    @Test func anIdleTopicIsDroppedFromMemoryAndItsRowsFromTheDatabase() throws {
        var configuration = TopicConfiguration()
        configuration.retention = .zero  // Idle as soon as nobody follows it.
        let hub = TopicHub(configuration: configuration)
        let app = ExampleApp.definition(topics: hub)
        let storage = try SQLiteSessionStorage(directory: directory, logger: log.logger)
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
        #expect(hub.topicCount == 1)
        // A closed (deleted) session no longer keeps its room.
        member.close()
        #expect(try hub.tidy() == 1)
        #expect(try storedTopics() == [:])
        #expect(hub.topicCount == 0)
    }
}
