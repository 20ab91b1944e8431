import Foundation
import GRDB
import ReMVVM
import ReMVVMPersistence
import Testing

@testable import ReMVVMSQLite

/// A session's identity in the SQLite file (schema 6): written with the session, read back by `list` and `load`,
/// absent (anonymous) for a session stored without one or by an older schema.
@Suite final class SQLiteIdentityTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("remvvm-sqlite-identity-\(UUID().uuidString)").path

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    @Test func anIdentityIsStoredWithItsSessionAndReadBack() throws {
        let alice = Identity(subject: "alice", claims: ["role": "admin", "name": "Alice"])
        let storage = try SQLiteSessionStorage(directory: directory)
        try storage.write([
            .create(SessionRecord(id: "a", tokenHash: "h", epoch: "e", identity: alice)),
            .create(SessionRecord(id: "b", tokenHash: "h", epoch: "e")),
        ])
        storage.close()
        let reopened = try SQLiteSessionStorage(directory: directory)
        defer { reopened.close() }
        let records = try reopened.list()
        #expect(records.first { $0.id == "a" }?.identity == alice)
        #expect(records.first { $0.id == "b" }?.identity == nil)
        #expect(try reopened.load("a")?.record.identity == alice)
    }

    @Test func aFileOfSchema5GainsTheColumnAndItsSessionsStayAnonymous() throws {
        let storage = try SQLiteSessionStorage(directory: directory)
        try storage.write([.create(SessionRecord(id: "old", tokenHash: "h", epoch: "e"))])
        storage.close()
        // Back to schema 5: no identity column.
        let path = directory + "/" + SQLiteSessionStorage.fileName
        let database = try DatabaseQueue(path: path)
        try database.write { db in
            try db.execute(sql: "ALTER TABLE sessions DROP COLUMN identity")
            try db.execute(sql: "PRAGMA user_version = 5")
        }
        try database.close()
        let migrated = try SQLiteSessionStorage(directory: directory)
        defer { migrated.close() }
        #expect(try migrated.load("old")?.record.identity == nil)
        let version = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == SQLiteSessionStorage.schemaVersion)
    }
}
