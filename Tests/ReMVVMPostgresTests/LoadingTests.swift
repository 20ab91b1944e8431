import Foundation
import HTTPTestClient
import PostgresTestSupport
import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres
@testable import ReMVVMServer

/// Loading sessions from the shared storage: never on an HTTP worker, read once however many clients ask, and
/// bounded, so that ids nobody holds cannot starve the real sessions' takeovers.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)), .serialized)
final class LoadingTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    /// Whether `condition` holds within `timeout`, checked every 10 ms.
    func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// With a storage that takes 2 s per call, a session being loaded parks its request; another session's read on
    /// the same (only) worker is answered meanwhile, well before the load ends.
    @Test func aSlowStorageNeverHoldsTheWorker() async throws {
        let owner = try Node.start("owner", on: database)
        let (node, storage) = try Node.startSlow("slow", on: database, threads: 1)
        let moving = try await owner.session(dispatching: 2)
        let held = try await node.session(dispatching: 1)
        storage.delay(.seconds(2))
        let started = ContinuousClock.now
        async let loaded = onOwnThread { try node.client(timeout: .seconds(10)).read(moving) }
        #expect(try await eventually { node.server.api.loader?.waiting == 1 })
        let (read, took) = try await onOwnThread {
            let client = try node.client()
            let before = ContinuousClock.now
            let read = try client.read(held)
            return (read, ContinuousClock.now - before)
        }
        #expect(read.status == 200)
        #expect(read.counter == 1)
        #expect(took < .seconds(1), "the held session's read took \(took) while another loaded")
        let answer = try await loaded
        #expect(answer.status == 200)
        #expect(answer.counter == 2)
        #expect(ContinuousClock.now - started >= .seconds(2))
        print("read of a held session while another loads for 2 s: \(took)")
        storage.delay(.zero)
        try await node.stop()
        try await owner.stop()
    }

    /// However many clients come for a session at once, the storage reads it once.
    @Test func manyClientsOfOneSessionReadItOnce() async throws {
        let owner = try Node.start("owner", on: database)
        let (node, storage) = try Node.startSlow("taker", on: database)
        let session = try await owner.session(dispatching: 1)
        storage.delay(.milliseconds(500))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask { try await onOwnThread { try node.client(timeout: .seconds(10)).read(session).status } }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 32))
        #expect(storage.takeovers == 1)
        storage.delay(.zero)
        try await node.stop()
        try await owner.stop()
    }

    /// Random well-formed ids and tokens flooding a node while it takes real sessions over: every real session
    /// answers within 2 s of its first request, and a repeated unknown id is answered without the storage.
    @Test func aFloodOfUnknownIdsDoesNotStarveRealTakeovers() async throws {
        let owner = try Node.start("owner", on: database)
        let (node, storage) = try Node.startSlow("taker", on: database)
        var created: [ClusterSession] = []
        for _ in 0..<20 { created.append(try await owner.session(dispatching: 1)) }
        let sessions = created

        // An unknown id and token asked twice: the second answer comes from the negative cache.
        let unknown = ClusterSession(id: Self.randomKey(), token: Self.randomKey(), epoch: "")
        let before = storage.takeovers
        #expect(try await onOwnThread { try node.client().read(unknown).status } == 404)
        #expect(try await onOwnThread { try node.client().read(unknown).status } == 404)
        #expect(storage.takeovers == before + 1)

        // Each takeover takes 20 ms more, as across a network: 128 reads in flight keep a single loader 2.5 s
        // behind.
        storage.delay(.milliseconds(20))
        let stop = Flag()
        async let flood = withThrowingTaskGroup(of: [Int: Int].self) { group in
            for _ in 0..<8 {
                group.addTask { try await onOwnThread { Self.flood(node, connections: 16, until: stop) } }
            }
            return try await group.reduce(into: [Int: Int]()) { $0.merge($1, uniquingKeysWith: +) }
        }
        try await Task.sleep(for: .milliseconds(500))
        let waits = try await withThrowingTaskGroup(of: Duration.self) { group in
            for part in 0..<4 {
                group.addTask {
                    try await onOwnThread {
                        let client = try node.client(timeout: .seconds(5))
                        var slowest = Duration.zero
                        for session in sessions.enumerated().filter({ $0.offset % 4 == part }).map(\.element) {
                            let started = ContinuousClock.now
                            while try client.read(session).status != 200, ContinuousClock.now - started < .seconds(5) {
                                usleep(50_000)
                            }
                            slowest = max(slowest, ContinuousClock.now - started)
                        }
                        return slowest
                    }
                }
            }
            return try await group.reduce(into: [Duration]()) { $0.append($1) }
        }
        stop.set()
        let statuses = try await flood
        storage.delay(.zero)
        let slowest = waits.max() ?? .zero
        print(
            "flood of unknown ids: \(statuses.values.reduce(0, +)) requests \(statuses), "
                + "slowest real session \(slowest), storage takeovers \(storage.takeovers)")
        #expect(slowest <= .seconds(2), "a real session answered \(slowest) after its first request")
        #expect(Set(statuses.keys).isSubset(of: [404, 503]))
        try await node.stop()
        try await owner.stop()
    }

    /// Beyond the cap of pending loads, a request for one more session is turned away at once: 503 `loading-busy`
    /// with `Retry-After`; the loads under way finish.
    @Test func loadsBeyondTheCapAre503WithRetryAfter() async throws {
        let (node, storage) = try Node.startSlow("capped", on: database, maxPendingLoads: 2)
        storage.delay(.seconds(1))
        let unknown = (0..<2).map { _ in ClusterSession(id: Self.randomKey(), token: Self.randomKey(), epoch: "") }
        async let first = onOwnThread { try node.client().read(unknown[0]).status }
        async let second = onOwnThread { try node.client().read(unknown[1]).status }
        #expect(try await eventually { node.server.api.loader?.waiting == 2 })
        let third = ClusterSession(id: Self.randomKey(), token: Self.randomKey(), epoch: "")
        let refused = try await onOwnThread { try node.client().read(third) }
        #expect(refused.status == 503)
        #expect(refused.problemType?.hasSuffix("loading-busy") == true)
        #expect(refused.header("Retry-After") == "1")
        #expect(try await first == 404)
        #expect(try await second == 404)
        storage.delay(.zero)
        try await node.stop()
    }

    /// One flooding thread: keeps a read of a random id and token in flight on each of `connections` connections
    /// (as many clients that do not wait for each other would) until `stop`; the statuses seen.
    static func flood(_ node: Node, connections: Int, until stop: Flag) -> [Int: Int] {
        var statuses: [Int: Int] = [:]
        let clients = (0..<connections).compactMap { _ in try? node.client(timeout: .seconds(10)) }
        func send(_ client: NodeClient) throws {
            try client.http.sendRequest(
                "GET", "/v1/sessions/\(randomKey())?views=counter",
                headers: [("Authorization", "Bearer \(randomKey())")])
        }
        do {
            for client in clients { try send(client) }
            while !stop.isSet {
                for client in clients {
                    statuses[try client.http.readResponse().status, default: 0] += 1
                    if !stop.isSet { try send(client) }
                }
            }
        } catch {
            statuses[0, default: 0] += 1
        }
        return statuses
    }

    static func randomKey() -> String {
        (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }
}

extension Node {
    /// Starts node `name` on a ``SlowStorage`` over its PostgreSQL storage; the node and the storage, to slow down.
    static func startSlow(
        _ name: String, on database: TestDatabase, threads: Int = 2, maxPendingLoads: Int = 256
    ) throws -> (Node, SlowStorage) {
        let made = Mutex<SlowStorage?>(nil)
        let node = try Node.start(name, on: database, threads: threads, maxPendingLoads: maxPendingLoads) { inner in
            let storage = SlowStorage(inner)
            made.withLock { $0 = storage }
            return storage
        }
        guard let storage = made.withLock({ $0 }) else { throw TestDatabaseError("the node made no storage") }
        return (node, storage)
    }
}

/// A shared storage and topic log that forwards to PostgreSQL, counts takeovers and topic reads, and sleeps before
/// each session call (``delay(_:)``) or each read of a topic's messages (``delayTopicReads(_:)``) when told.
final class SlowStorage: SessionStorage, TopicLog {
    private let inner: PostgresSessionStorage
    private let pause = Atomic<Int>(0)
    private let topicPause = Atomic<Int>(0)
    private let taken = Atomic<Int>(0)
    private let reads = Atomic<Int>(0)

    init(_ inner: PostgresSessionStorage) { self.inner = inner }

    /// Each session call waits `delay` first.
    func delay(_ delay: Duration) { pause.store(Int(delay / .milliseconds(1)), ordering: .relaxed) }

    /// Each read of a topic's messages waits `delay` first.
    func delayTopicReads(_ delay: Duration) {
        topicPause.store(Int(delay / .milliseconds(1)), ordering: .relaxed)
    }

    /// Takeovers asked of the storage so far.
    var takeovers: Int { taken.load(ordering: .relaxed) }

    /// Reads of a topic's messages so far.
    var topicReads: Int { reads.load(ordering: .relaxed) }

    var isShared: Bool { true }

    private func wait(topics: Bool = false) {
        let milliseconds = topics ? topicPause.load(ordering: .relaxed) : pause.load(ordering: .relaxed)
        if milliseconds > 0 { usleep(useconds_t(milliseconds * 1_000)) }
    }

    func list() throws(StorageError) -> [SessionRecord] { try inner.list() }
    func load(_ id: String) throws(StorageError) -> StoredSession? {
        wait()
        return try inner.load(id)
    }
    func write(_ changes: [StorageChange]) throws(StorageError) {
        wait()
        try inner.write(changes)
    }
    func close() { inner.close() }
    func takeOver(_ id: String, tokenHash: String) throws(StorageError) -> StoredSession? {
        taken.add(1, ordering: .relaxed)
        wait()
        return try inner.takeOver(id, tokenHash: tokenHash)
    }
    func releaseAll() throws(StorageError) { try inner.releaseAll() }
    func watchTakeovers(_ handler: @escaping @Sendable (String) -> Void) { inner.watchTakeovers(handler) }
    func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] {
        try inner.deleteExpired(before: now, limit: limit)
    }
    func pruneTopicCounters(limit: Int) throws(StorageError) -> Int { try inner.pruneTopicCounters(limit: limit) }

    func messages(of topic: String, after sequence: UInt64) throws -> (last: UInt64, entries: [TopicLogEntry]) {
        reads.add(1, ordering: .relaxed)
        wait(topics: true)
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

/// Set once, read by other threads.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
