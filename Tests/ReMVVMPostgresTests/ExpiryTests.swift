import Foundation
import HTTPTestClient
import PostgresTestSupport
import ReMVVMPersistence
import Synchronization
import Testing

@testable import ReMVVMPostgres

/// Stored sessions expire in PostgreSQL: the expiry column, its migration, and the tidy's deletions, shared by
/// several nodes at once.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class ExpiryTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    func open(node: String = "node-a") throws -> PostgresSessionStorage {
        try PostgresSessionStorage(url: database.url, node: node, listensForTakeovers: false)
    }

    func record(_ id: String, expires: TimeInterval) -> SessionRecord {
        SessionRecord(
            id: id, tokenHash: Hashing.tokenHash("token-\(id)"), epoch: "epoch-\(id)",
            created: Date(timeIntervalSince1970: 1_000), expires: Date(timeIntervalSince1970: expires))
    }

    func commit(_ version: UInt64) -> StoredCommit {
        StoredCommit(version: version, actions: Data(#"[{"type":"counter/increase","payload":{}}]"#.utf8))
    }

    /// Rows stored for `id` in each table.
    func rows(of id: String) throws -> [String: Int64] {
        let connection = try database.connect()
        var counts: [String: Int64] = [:]
        for (table, column) in [
            ("sessions", "id"), ("snapshots", "session"), ("log", "session"), ("idempotency", "session"),
        ] {
            counts[table] = try connection.execute(
                "SELECT count(*) FROM \(table) WHERE \(column) = $1::text", [.text(id)]
            ).int64(0, 0)
        }
        return counts
    }

    /// A session with a log, a snapshot and a key, expiring at `expires`.
    func store(_ id: String, expires: TimeInterval, in storage: PostgresSessionStorage) throws {
        try storage.write([
            .create(record(id, expires: expires)), .append(session: id, commits: [commit(1), commit(2)]),
            .snapshot(
                session: id,
                StoredSnapshot(version: 1, stateType: "App.State", stateVersion: 1, state: Data("{}".utf8))),
            .remember(session: id, StoredIdempotencyKey(key: "k", digest: [1], version: 2)),
        ])
    }

    @Test func expiredSessionsAreDeletedWithTheirSnapshotLogAndKeys() throws {
        let storage = try open()
        try store("a", expires: 2_000, in: storage)
        try store("b", expires: 3_000, in: storage)
        try store("c", expires: 5_000, in: storage)
        let now = Date(timeIntervalSince1970: 4_000)
        #expect(try storage.deleteExpired(before: now, limit: 1) == ["a"])
        #expect(try storage.deleteExpired(before: now, limit: 10) == ["b"])
        #expect(try storage.deleteExpired(before: now, limit: 10) == [])
        #expect(try storage.list().map(\.id) == ["c"])
        let gone: [String: Int64] = ["sessions": 0, "snapshots": 0, "log": 0, "idempotency": 0]
        #expect(try rows(of: "a") == gone)
        #expect(try rows(of: "b") == gone)
        // The log since the previous snapshot is kept (none before the first: the whole log).
        #expect(try rows(of: "c") == ["sessions": 1, "snapshots": 1, "log": 2, "idempotency": 1])
        // This node forgot the fences of the sessions it held and that are gone.
        #expect(storage.fence(of: "a") == nil)
        #expect(storage.fence(of: "c") != nil)
        storage.close()
    }

    @Test func twoNodesTidyingAtOnceDeleteEachExpiredSessionOnce() async throws {
        let writer = try open(node: "writer")
        let expired = (0..<400).map { String(format: "e%03d", $0) }
        for chunk in stride(from: 0, to: expired.count, by: 100) {
            try writer.write(expired[chunk..<chunk + 100].map { .create(record($0, expires: 2_000)) })
        }
        try writer.write((0..<20).map { .create(record(String(format: "k%03d", $0), expires: 9_000)) })
        writer.close()
        let nodes = try [open(node: "node-a"), open(node: "node-b")]
        let now = Date(timeIntervalSince1970: 4_000)
        let deleted = try await withThrowingTaskGroup(of: [String].self) { group in
            for node in nodes {
                group.addTask {
                    try await onOwnThread {
                        var ids: [String] = []
                        while true {
                            let batch = try node.deleteExpired(before: now, limit: 10)
                            if batch.isEmpty { return ids }
                            ids += batch
                        }
                    }
                }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        let all: [String] = deleted.flatMap { $0 }
        print("two nodes tidying at once deleted \(deleted.map { $0.count }) sessions")
        #expect(all.count == expired.count)
        #expect(Set(all) == Set(expired))
        #expect(Set(deleted[0]).isDisjoint(with: deleted[1]))
        #expect(try nodes[0].list().count == 20)
        for node in nodes { node.close() }
    }

    @Test func aTouchMovesTheExpiryLaterOnlyWhileThisNodeHoldsTheSession() throws {
        let nodeA = try open(node: "node-a")
        try nodeA.write([.create(record("a", expires: 2_000))])
        try nodeA.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 5_000))])
        try nodeA.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 3_000))])
        #expect(try nodeA.list().first?.expires == Date(timeIntervalSince1970: 5_000))
        // A repair's identity with an older expiry keeps the stored one.
        try nodeA.write([.create(record("a", expires: 2_000))])
        #expect(try nodeA.list().first?.expires == Date(timeIntervalSince1970: 5_000))
        // Node B takes it over: node A's touches change nothing any more.
        let nodeB = try open(node: "node-b")
        #expect(try nodeB.load("a") != nil)
        try nodeA.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 8_000))])
        #expect(try nodeB.list().first?.expires == Date(timeIntervalSince1970: 5_000))
        try nodeB.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 7_000))])
        #expect(try nodeB.list().first?.expires == Date(timeIntervalSince1970: 7_000))
        nodeA.close()
        nodeB.close()
    }

    @Test func aVersionThreeDatabaseIsMigratedKeepingItsSessionsWhichExpireADefaultLifetimeFromNow() throws {
        let storage = try open()
        try store("a", expires: 2_000, in: storage)
        storage.close()
        // Back to schema 3: no expiry column.
        let connection = try database.connect()
        try connection.execute("DROP INDEX sessions_by_expiry")
        try connection.execute("ALTER TABLE sessions DROP COLUMN expires_at")
        try connection.execute("UPDATE schema_version SET version = 3")

        let before = Date()
        let migrated = try open()
        let stored = try #require(try migrated.list().first)
        #expect(stored.id == "a")
        #expect(stored.expires >= before.addingTimeInterval(SessionRecord.defaultLifetime - 1))
        #expect(stored.expires <= Date().addingTimeInterval(SessionRecord.defaultLifetime + 1))
        #expect(try migrated.deleteExpired(before: Date(), limit: 10) == [])
        #expect(try rows(of: "a") == ["sessions": 1, "snapshots": 1, "log": 2, "idempotency": 1])
        #expect(
            try connection.execute("SELECT version FROM schema_version").int32(0, 0)
                == Int32(PostgresSessionStorage.schemaVersion))
        migrated.close()
    }

    @Test func topicCountersWithoutMessagesArePruned() throws {
        let storage = try open()
        _ = try storage.append(topic: "room/kept", action: Data("{}".utf8), retaining: 10)
        _ = try storage.append(topic: "room/idle", action: Data("{}".utf8), retaining: 10)
        // The topics' own tidy dropped the idle room's messages.
        try database.connect().execute("DELETE FROM topic_messages WHERE topic = 'room/idle'")
        #expect(try storage.pruneTopicCounters(limit: 10) == 1)
        let counters = try database.connect().execute("SELECT topic FROM topic_counters")
        #expect(counters.count == 1)
        #expect(try counters.text(0, 0) == "room/kept")
        storage.close()
    }
}
