import Foundation
import GRDB
import ReMVVMPersistence
import Testing

@testable import ReMVVMSQLite

extension SQLiteSessionStorageTests {
    func record(_ id: String, expires: TimeInterval) -> SessionRecord {
        var record = newRecord(id)
        record.expires = Date(timeIntervalSince1970: expires)
        return record
    }

    /// Rows left for `id` in each table.
    func rows(of id: String) throws -> [String: Int] {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { db in
            var counts: [String: Int] = [:]
            for (table, column) in [
                ("sessions", "id"), ("snapshots", "session"), ("log", "session"), ("idempotency", "session"),
            ] {
                counts[table] = try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM \(table) WHERE \(column) = ?", arguments: [id])
            }
            return counts
        }
    }

    @Test func expiredSessionsAreDeletedInBatchesWithTheirSnapshotLogAndKeys() throws {
        let storage = try open()
        for (id, expires) in [("a", 2_000.0), ("b", 3_000.0), ("c", 5_000.0)] {
            try storage.write([
                .create(record(id, expires: expires)), .append(session: id, commits: [commit(1), commit(2)]),
                .snapshot(session: id, snapshot(1)),
                .remember(session: id, StoredIdempotencyKey(key: "k", digest: [1], version: 2)),
            ])
        }
        let now = Date(timeIntervalSince1970: 4_000)
        #expect(try storage.deleteExpired(before: now, limit: 1) == ["a"])
        #expect(try storage.deleteExpired(before: now, limit: 10) == ["b"])
        #expect(try storage.deleteExpired(before: now, limit: 10) == [])
        #expect(try storage.list().map(\.id) == ["c"])
        storage.close()
        let gone = ["sessions": 0, "snapshots": 0, "log": 0, "idempotency": 0]
        #expect(try rows(of: "a") == gone)
        #expect(try rows(of: "b") == gone)
        // The log since the previous snapshot is kept (none before the first: the whole log).
        #expect(try rows(of: "c") == ["sessions": 1, "snapshots": 1, "log": 2, "idempotency": 1])
    }

    @Test func aTouchMovesTheExpiryLaterNeverEarlierAndARepairKeepsTheLaterOne() throws {
        let storage = try open()
        try storage.write([.create(record("a", expires: 2_000))])
        try storage.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 5_000))])
        try storage.write([.touch(session: "a", expires: Date(timeIntervalSince1970: 3_000))])
        #expect(try storage.load("a")?.record.expires == Date(timeIntervalSince1970: 5_000))
        // A repair writes the identity again with an older expiry: the stored one stays.
        try storage.write([.create(record("a", expires: 2_000))])
        #expect(try storage.load("a")?.record.expires == Date(timeIntervalSince1970: 5_000))
        #expect(try storage.deleteExpired(before: Date(timeIntervalSince1970: 4_000), limit: 10) == [])
        storage.close()
    }

    @Test func aVersionFourFileIsMigratedKeepingItsSessionsWhichExpireADefaultLifetimeFromNow() throws {
        let storage = try open()
        try storage.write([.create(newRecord("a")), .append(session: "a", commits: [commit(1)])])
        storage.close()
        // Back to schema 4: no expiry column.
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(sql: "ALTER TABLE sessions DROP COLUMN expires_at")
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        try old.close()

        let before = Date()
        let migrated = try open()
        let stored = try #require(try migrated.load("a"))
        #expect(stored.log == [commit(1)])
        #expect(stored.record.expires >= before.addingTimeInterval(SessionRecord.defaultLifetime - 1))
        #expect(stored.record.expires <= Date().addingTimeInterval(SessionRecord.defaultLifetime + 1))
        #expect(try migrated.deleteExpired(before: Date(), limit: 10) == [])
        migrated.close()
        let check = try DatabaseQueue(path: path)
        #expect(
            try check.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
                == SQLiteSessionStorage.schemaVersion)
        try check.close()
    }
}
