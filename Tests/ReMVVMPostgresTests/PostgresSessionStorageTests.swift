import Foundation
import Logging
import PostgresTestSupport
import ReMVVMPersistence
import Testing

@testable import ReMVVMPostgres

/// The PostgreSQL storage against a real server, one fresh database per test.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class PostgresSessionStorageTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    func open(node: String = "node-a") throws -> PostgresSessionStorage {
        try PostgresSessionStorage(url: database.url, node: node)
    }

    func record(_ id: String) -> SessionRecord {
        SessionRecord(
            id: id, tokenHash: Hashing.tokenHash("token-\(id)"), epoch: "epoch-\(id)",
            created: Date(timeIntervalSince1970: 1_000))
    }

    func commit(_ version: UInt64) -> StoredCommit {
        StoredCommit(version: version, actions: Data(#"[{"type":"counter/increase","payload":{}}]"#.utf8))
    }

    func snapshot(_ version: UInt64, stateType: String = "App.State") -> StoredSnapshot {
        StoredSnapshot(version: version, stateType: stateType, stateVersion: 2, state: Data(#"{"counter":2}"#.utf8))
    }

    @Test func theSchemaIsCreatedOnceVersionedAndANewerOneRefused() throws {
        let first = try open()
        first.close()
        let second = try open()
        second.close()
        let connection = try database.connect()
        let versions = try connection.execute("SELECT version FROM schema_version")
        #expect(versions.count == 1)
        #expect(try versions.int32(0, 0) == Int32(PostgresSessionStorage.schemaVersion))
        let tables = try connection.execute(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1")
        #expect(
            try (0..<tables.count).map { try tables.text($0, 0) }
                == [
                    "idempotency", "log", "node_versions", "previous_snapshots", "schema_version", "sessions",
                    "snapshots", "topic_counters", "topic_messages",
                ])

        let current = Int32(PostgresSessionStorage.schemaVersion)
        // A version 1 database is migrated: its fence check then names every lost session.
        try connection.execute("UPDATE schema_version SET version = 1")
        try open().close()
        #expect(try connection.execute("SELECT version FROM schema_version").int32(0, 0) == current)

        // A version 2 database gets the topic tables.
        try connection.execute("DROP TABLE topic_counters, topic_messages")
        try connection.execute("UPDATE schema_version SET version = 2")
        try open().close()
        #expect(try connection.execute("SELECT version FROM schema_version").int32(0, 0) == current)
        #expect(try connection.execute("SELECT count(*) FROM topic_counters").int64(0, 0) == 0)

        // A version 3 database gets the time each topic was last used (idle topics are deleted).
        try connection.execute("ALTER TABLE topic_counters DROP COLUMN touched")
        try connection.execute("UPDATE schema_version SET version = 3")
        try open().close()
        #expect(try connection.execute("SELECT version FROM schema_version").int32(0, 0) == current)
        #expect(try connection.execute("SELECT count(touched) FROM topic_counters").int64(0, 0) == 0)

        try connection.execute("UPDATE schema_version SET version = 99")
        #expect {
            try PostgresSessionStorage(url: database.url, node: "node-a")
        } throws: { error in
            (error as? StorageError)?.isIncompatible == true
        }
    }

    @Test func sessionsRoundTripWithSnapshotLogAndKeys() throws {
        let storage = try open()
        let key = StoredIdempotencyKey(key: "k1", digest: [1, 2, 3], version: 3)
        let answer = Data(#"{"results":["applied"]}"#.utf8)
        try storage.write([
            .create(record("a")), .create(record("b")),
            .append(session: "a", commits: [commit(2), commit(1)]),
            .append(session: "b", commits: [commit(1)]),
            .append(session: "a", commits: [commit(3)]),
            .remember(session: "a", key),
            .answer(session: "a", key: "k1", answer: answer),
        ])
        try storage.write([
            .remember(session: "a", StoredIdempotencyKey(key: "k2", digest: [4], version: 4)),
            .append(session: "a", commits: [commit(4)]),
        ])
        try storage.write([.answer(session: "a", key: "k2", answer: Data("{}".utf8))])
        try storage.snapshot(snapshot(2), of: "a")
        #expect(try storage.list() == [record("a"), record("b")])
        let loaded = try #require(try storage.load("a"))
        #expect(loaded.record == record("a"))
        #expect(loaded.snapshot == snapshot(2))
        #expect(loaded.log == [commit(3), commit(4)])
        var first = key
        first.answer = answer
        #expect(
            loaded.keys == [first, StoredIdempotencyKey(key: "k2", digest: [4], version: 4, answer: Data("{}".utf8))])

        try storage.write([.forgetKeys(session: "a", keeping: 1)])
        #expect(try storage.load("a")?.keys.map(\.key) == ["k2"])
        try storage.delete("a")
        #expect(try storage.load("a") == nil)
        #expect(try storage.list() == [record("b")])
        let connection = try database.connect()
        for table in ["log", "snapshots", "idempotency"] {
            #expect(try connection.execute("SELECT 1 FROM \(table) WHERE session = 'a'").count == 0)
        }
        storage.close()
        #expect(throws: StorageError.closed) { try storage.list() }
    }

    @Test func aBatchIsOneTransactionAndAFailingOneLeavesNothing() throws {
        let storage = try open()
        try storage.create(record("a"))
        // A NUL byte is not valid text in PostgreSQL: the snapshot, last in the batch, fails.
        #expect {
            try storage.write([
                .create(record("b")), .append(session: "a", commits: [commit(1)]),
                .append(session: "b", commits: [commit(1)]), .snapshot(session: "b", snapshot(1, stateType: "\u{0}")),
            ])
        } throws: { error in
            (error as? StorageError).map { !$0.isFenced && !$0.isClosed } == true
        }
        #expect(try storage.list() == [record("a")])
        #expect(try storage.load("a")?.log == [])
        // The connection is still usable.
        try storage.append([commit(1)], to: "a")
        #expect(try storage.load("a")?.log == [commit(1)])
    }

    @Test func aSessionTakenOverByAnotherNodeRefusesTheOldOwnersAppend() throws {
        let old = try open(node: "node-a")
        try old.write([.create(record("a")), .append(session: "a", commits: [commit(1)])])
        #expect(old.fence(of: "a") == 1)
        let new = try open(node: "node-b")
        #expect(try new.load("a")?.log == [commit(1)])
        #expect(new.fence(of: "a") == 2)
        let owner = try database.connect().execute("SELECT owner, fence FROM sessions WHERE id = 'a'")
        #expect(try owner.text(0, 0) == "node-b")

        #expect {
            try old.write([.create(record("c")), .append(session: "a", commits: [commit(2)])])
        } throws: { error in
            (error as? StorageError)?.isFenced == true
        }
        // Nothing of the refused batch is stored, not even the other session's creation.
        #expect(try new.load("a")?.log == [commit(1)])
        #expect(try new.list().map(\.id) == ["a"])
        // The new owner appends; the old one, loading again, takes the session back.
        try new.append([commit(2)], to: "a")
        #expect(try old.load("a")?.log == [commit(1), commit(2)])
        try old.append([commit(3)], to: "a")
        #expect { try new.append([commit(3)], to: "a") } throws: { ($0 as? StorageError)?.isFenced == true }
    }

    @Test func aLostConnectionFailsTheWriteThenTheNextOneReconnects() throws {
        let storage = try open()
        try storage.create(record("a"))
        let admin = try database.connect()
        try admin.execute("SELECT pg_terminate_backend($1::integer)", [.int32(storage.backendProcess)])
        #expect {
            try storage.append([commit(1)], to: "a")
        } throws: { error in
            guard let error = error as? StorageError else { return false }
            return !error.isFenced && !error.isClosed && !error.isCorrupt && !error.isIncompatible
        }
        try storage.append([commit(1)], to: "a")
        #expect(try storage.load("a")?.log == [commit(1)])
    }

    @Test func anUnreachableServerIsUnavailableNotAHang() throws {
        let clock = ContinuousClock()
        let start = clock.now
        #expect {
            // Port 1 on loopback: nothing listens there, the connection is refused at once.
            try PostgresSessionStorage(url: "postgresql://postgres@127.0.0.1:1/remvvm", node: "n")
        } throws: { error in
            (error as? StorageError)?.description.contains("cannot connect") == true
        }
        #expect(clock.now - start < .seconds(10))
    }
}
