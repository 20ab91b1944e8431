import ExampleApp
import Foundation
import Logging
import PostgresTestSupport
import ReMVVM
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres

/// The group-commit writer on PostgreSQL when another node takes some of its sessions over: the
/// batch is refused as a whole, and written again without the lost sessions.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class FencedWriterTests {
    let database: TestDatabase
    static let quiet = Logger(label: "remvvm.test") { _ in SwiftLogNoOpLogHandler() }

    init() throws {
        database = try TestDatabase()
    }

    func record(_ id: String) -> SessionRecord {
        SessionRecord(id: id, tokenHash: Hashing.tokenHash("token-\(id)"), epoch: "epoch-\(id.prefix(4))")
    }

    @Test func theStorageNamesEveryLostSessionOfARefusedBatch() throws {
        let nodeA = try PostgresSessionStorage(url: database.url, node: "node-a", listensForTakeovers: false)
        defer { nodeA.close() }
        let nodeB = try PostgresSessionStorage(url: database.url, node: "node-b", listensForTakeovers: false)
        defer { nodeB.close() }
        let ids = ["s1", "s2", "s3"]
        try nodeA.write(ids.map { .create(record($0)) })
        #expect(try nodeB.takeOver("s1", tokenHash: Hashing.tokenHash("token-s1")) != nil)
        #expect(try nodeB.takeOver("s3", tokenHash: Hashing.tokenHash("token-s3")) != nil)
        let commit = StoredCommit(version: 1, actions: Data("[]".utf8))
        #expect {
            try nodeA.write(ids.map { .append(session: $0, commits: [commit]) })
        } throws: { error in
            (error as? StorageError)?.lostSessions == ["s1", "s3"]
        }
        // The lost sessions' fences are forgotten; the other one is written alone.
        #expect(nodeA.fence(of: "s1") == nil)
        try nodeA.write([.append(session: "s2", commits: [commit])])
        #expect(try nodeB.load("s2")?.log.map(\.version) == [1])
        #expect(try nodeB.load("s1")?.log.isEmpty == true)
    }

    @Test func aWrongTokenMovesNothing() throws {
        let nodeA = try PostgresSessionStorage(url: database.url, node: "node-a", listensForTakeovers: false)
        defer { nodeA.close() }
        let nodeB = try PostgresSessionStorage(url: database.url, node: "node-b", listensForTakeovers: false)
        defer { nodeB.close() }
        try nodeA.write([.create(record("s1"))])
        #expect(try nodeB.takeOver("s1", tokenHash: Hashing.tokenHash("wrong")) == nil)
        #expect(try nodeB.takeOver("s9", tokenHash: Hashing.tokenHash("token-s9")) == nil)
        let rows = try database.connect().execute("SELECT owner, fence FROM sessions WHERE id = 's1'")
        #expect(try rows.text(0, 0) == "node-a")
        #expect(try rows.int64(0, 1) == 1)
    }

    /// Also when both nodes have the same name (say, `0.0.0.0:8080` in every container): notices are told apart
    /// by their fences.
    @Test(arguments: [("node-a", "node-b"), ("0.0.0.0:8080", "0.0.0.0:8080")])
    func aTakeoverIsAnnouncedToTheNodeThatHeldTheSession(names: (String, String)) async throws {
        let nodeA = try PostgresSessionStorage(url: database.url, node: names.0)
        defer { nodeA.close() }
        let nodeB = try PostgresSessionStorage(url: database.url, node: names.1)
        defer { nodeB.close() }
        // When each notice was heard, read on the listener's thread: the test's own tasks may be slow to run.
        let heard = Mutex<[(id: String, at: ContinuousClock.Instant)]>([])
        nodeA.watchTakeovers { id in heard.withLock { $0.append((id, .now)) } }
        nodeB.watchTakeovers { id in heard.withLock { $0.append(("b:" + id, .now)) } }
        try nodeA.write([.create(record("s1")), .create(record("s2"))])
        try await database.waitForListeners(2)
        for (index, id) in ["s1", "s2"].enumerated() {
            #expect(try nodeB.takeOver(id, tokenHash: Hashing.tokenHash("token-\(id)")) != nil)
            // Timed from the takeover's commit, when PostgreSQL sends the notice.
            let committed = ContinuousClock.now
            while heard.withLock({ $0.count <= index }), ContinuousClock.now - committed < .seconds(5) {
                try await Task.sleep(for: .milliseconds(5))
            }
            let notice = try #require(heard.withLock { $0.count > index ? $0[index] : nil })
            #expect(notice.id == id)
            #expect(notice.at - committed < .seconds(1), "heard of \(id) \(notice.at - committed) after the takeover")
        }
        // Node B hears its own notices and ignores them.
        #expect(heard.withLock { $0.map(\.id) } == ["s1", "s2"])
    }

    @Test func aFencedBatchFailsOnlyTheLostSessionsBarriers() async throws {
        let storage = try PostgresSessionStorage(url: database.url, node: "node-a", listensForTakeovers: false)
        let thief = try PostgresSessionStorage(url: database.url, node: "node-b", listensForTakeovers: false)
        defer { thief.close() }
        let sessions = DurableSessions(ExampleApp.definition(), storage: storage, logger: Self.quiet)
        let lost = Mutex<[String]>([])
        sessions.whenSessionsLost { ids in lost.withLock { $0 += ids } }
        let first = sessions.makeTypedStore(for: record("aaaa1"))
        let second = sessions.makeTypedStore(for: record("bbbb2"))
        _ = try first.dispatch(CounterAction.Increase())
        _ = try second.dispatch(CounterAction.Increase())
        #expect(await Self.durable(sessions, session: nil) == nil)

        #expect(try thief.takeOver("aaaa1", tokenHash: Hashing.tokenHash("token-aaaa1")) != nil)
        _ = try first.dispatch(CounterAction.Increase())
        _ = try second.dispatch(CounterAction.Increase())
        async let firstError = Self.durable(sessions, session: "aaaa1")
        async let secondError = Self.durable(sessions, session: "bbbb2")
        let (moved, written) = await (firstError, secondError)
        #expect(moved?.isFenced == true)
        #expect(written == nil)
        #expect(lost.withLock { $0 } == ["aaaa1"])
        // Later commits of the lost session are never written, and its barriers keep failing.
        _ = try first.dispatch(CounterAction.Increase())
        #expect(await Self.durable(sessions, session: "aaaa1")?.isFenced == true)
        sessions.shutdown()

        // The clean shutdown released what node A still held, and only that.
        let owners = try database.connect().execute("SELECT id, owner FROM sessions ORDER BY id")
        #expect(try owners.text(0, 1) == "node-b")
        #expect(owners.optionalBytes(1, 1) == nil)
        #expect(try thief.load("aaaa1")?.log.map(\.version) == [1])
        let kept = try #require(try thief.load("bbbb2"))
        #expect(kept.snapshot?.version == 2)
    }

    private static func durable(_ sessions: some SessionPersistence, session: String?) async -> StorageError? {
        await withCheckedContinuation { continuation in
            sessions.whenDurable(session: session) { error in continuation.resume(returning: error) }
        }
    }
}
