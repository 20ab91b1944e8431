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

/// Joining a room reads the room's history from the shared topic log: that read runs on the server's own
/// threads, never on the HTTP worker that answered the join, so a slow database stalls no other request.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class TopicWorkerTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    @Test func aJoinWhoseTopicLogTakesTwoSecondsHoldsNoWorker() async throws {
        let slow = Mutex<SlowTopicStorage?>(nil)
        // One HTTP worker: the join and the other session's read share it.
        let node = try Node.start("node-a", on: database, threads: 1) { inner in
            let storage = SlowTopicStorage(inner)
            slow.withLock { $0 = storage }
            return storage
        }
        let storage = try #require(slow.withLock { $0 })
        try await database.waitForTopicListeners(1)
        let setup = try node.client()
        let ada = try setup.createSession()
        let bob = try setup.createSession()
        storage.delayTopicReads(.seconds(2))
        let clock = ContinuousClock()
        async let joined = onOwnThread {
            let joiner = try node.client(timeout: .seconds(10))
            let start = clock.now
            try joiner.chat(ada, .join("lobby", as: "Ada"))
            return clock.now - start
        }
        try await Task.sleep(for: .milliseconds(200))
        let (read, readIn) = try await onOwnThread {
            let reader = try node.client(timeout: .seconds(10))
            let start = clock.now
            let response = try reader.read(bob)
            return (response.status, clock.now - start)
        }
        let joinedIn = try await joined
        #expect(read == 200)
        #expect(storage.topicReads >= 1, "the join read the room's history from the topic log")
        #expect(readIn < .seconds(1), "another session's read on the same worker waited \(readIn)")
        #expect(joinedIn < .seconds(1), "the join itself was answered after \(joinedIn)")
        // The subscription still happens: a post in the room reaches Ada once the log has answered.
        storage.delayTopicReads(.zero)
        try setup.chat(ada, .post("hello"))
        let watcher = try node.client()
        let deadline = clock.now + .seconds(10)
        while try watcher.lines(ada) != ["Ada: hello"], clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try watcher.lines(ada) == ["Ada: hello"])
        try await node.stop()
    }
}

/// PostgreSQL's storage and topic log, whose reads of a topic's messages sleep first when told.
final class SlowTopicStorage: SessionStorage, TopicLog {
    private let inner: PostgresSessionStorage
    private let pause = Atomic<Int>(0)
    private let reads = Atomic<Int>(0)

    init(_ inner: PostgresSessionStorage) { self.inner = inner }

    /// Each read of a topic's messages waits `delay` first.
    func delayTopicReads(_ delay: Duration) { pause.store(Int(delay / .milliseconds(1)), ordering: .relaxed) }

    /// Reads of a topic's messages so far.
    var topicReads: Int { reads.load(ordering: .relaxed) }

    var isShared: Bool { true }

    func list() throws(StorageError) -> [SessionRecord] { try inner.list() }
    func load(_ id: String) throws(StorageError) -> StoredSession? { try inner.load(id) }
    func write(_ changes: [StorageChange]) throws(StorageError) { try inner.write(changes) }
    func close() { inner.close() }
    func takeOver(_ id: String, tokenHash: String) throws(StorageError) -> StoredSession? {
        try inner.takeOver(id, tokenHash: tokenHash)
    }
    func releaseAll() throws(StorageError) { try inner.releaseAll() }
    func watchTakeovers(_ handler: @escaping @Sendable (String) -> Void) { inner.watchTakeovers(handler) }
    func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] {
        try inner.deleteExpired(before: now, limit: limit)
    }
    func pruneTopicCounters(limit: Int) throws(StorageError) -> Int { try inner.pruneTopicCounters(limit: limit) }

    func messages(of topic: String, after sequence: UInt64) throws -> (last: UInt64, entries: [TopicLogEntry]) {
        reads.add(1, ordering: .relaxed)
        let milliseconds = pause.load(ordering: .relaxed)
        if milliseconds > 0 { usleep(useconds_t(milliseconds * 1_000)) }
        return try inner.messages(of: topic, after: sequence)
    }
    func watchTopics(_ wake: @escaping @Sendable (_ topic: String?, _ sequence: UInt64?) -> Void) {
        inner.watchTopics(wake)
    }
    func retainedTopicMessages() throws -> [TopicLogEntry] { try inner.retainedTopicMessages() }
    func append(topic: String, action: Data, retaining: Int) throws -> UInt64 {
        try inner.append(topic: topic, action: action, retaining: retaining)
    }
    func forget(_ sweep: TopicSweep, retention: Duration) throws { try inner.forget(sweep, retention: retention) }
}
