import Foundation
import GRDB
import Logging
import ReMVVMPersistence
import Testing

@testable import ReMVVMSQLite

@Suite final class SQLiteSessionStorageTests {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("remvvm-sqlite-\(UUID().uuidString)").path
    let log = LogCapture()
    var path: String { directory + "/" + SQLiteSessionStorage.fileName }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func open() throws -> SQLiteSessionStorage {
        try SQLiteSessionStorage(directory: directory, logger: log.logger)
    }

    func commit(_ version: UInt64) -> StoredCommit {
        StoredCommit(version: version, actions: Data(#"[{"type":"counter/increase","payload":{}}]"#.utf8))
    }

    func snapshot(_ version: UInt64, _ state: String = #"{"counter":1}"#) -> StoredSnapshot {
        StoredSnapshot(version: version, stateType: "App.State", stateVersion: 3, state: Data(state.utf8))
    }

    /// The file holds token hashes and every session's state: only its owner may read it, whatever the umask, and
    /// the `-wal` and `-shm` files SQLite makes beside it take its mode. A file left 0644 by an older server is
    /// narrowed when opened.
    @Test func theDatabaseAndItsWALAreOwnerOnly() throws {
        func mode(_ file: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        }
        let storage = try open()
        try storage.create(newRecord("a"))
        for file in [path, path + "-wal", path + "-shm"] { #expect(try mode(file) == 0o600, "\(file)") }
        storage.close()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let reopened = try open()
        #expect(try mode(path) == 0o600)
        reopened.close()
    }

    @Test func sessionsRoundTripWithTheirLogInVersionOrder() throws {
        let storage = try open()
        let record = newRecord("a")
        try storage.write([.create(record), .append(session: "a", commits: [commit(2), commit(1)])])
        try storage.append([commit(3)], to: "a")
        #expect(try storage.list() == [record])
        let stored = try #require(try storage.load("a"))
        #expect(stored.record == record)
        #expect(stored.snapshot == nil)
        #expect(stored.log == [commit(1), commit(2), commit(3)])
        #expect(try storage.load("missing") == nil)
        storage.close()
    }

    /// The replaced snapshot stays as the previous one, with the log since it (what `verify-upgrade` replays);
    /// the log before it is compacted. A restore reads the latest snapshot and the log after it.
    @Test func aSnapshotReplacesTheLastOneKeptAsThePreviousWithTheLogSinceIt() throws {
        let storage = try open()
        try storage.create(newRecord("a"))
        try storage.append((1...6).map(commit), to: "a")
        try storage.snapshot(snapshot(2), of: "a")
        try storage.snapshot(snapshot(4, #"{"counter":4}"#), of: "a")
        let stored = try #require(try storage.load("a"))
        #expect(stored.snapshot == snapshot(4, #"{"counter":4}"#))
        #expect(stored.log.map(\.version) == [5, 6])
        let rows = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM log") }
        #expect(rows == 4)
        let history = try #require(try SQLiteSessionHistory(path: path).history("a"))
        #expect(history.previous == snapshot(2))
        #expect(history.log.map(\.version) == [3, 4, 5, 6])
        storage.close()
    }

    @Test func deleteRemovesTheSessionItsSnapshotAndItsLog() throws {
        let storage = try open()
        try storage.write([
            .create(newRecord("a")), .create(newRecord("b")), .append(session: "a", commits: [commit(1)]),
            .snapshot(session: "a", snapshot(1)),
        ])
        try storage.delete("a")
        #expect(try storage.list().map(\.id) == ["b"])
        #expect(try storage.load("a") == nil)
        storage.close()
    }

    @Test func dataSurvivesReopeningInWALModeWithFullSynchronousWrites() throws {
        let storage = try open()
        try storage.write([.create(newRecord("a")), .append(session: "a", commits: [commit(1)])])
        storage.close()
        let again = try open()
        #expect(try again.load("a")?.log == [commit(1)])
        let (synchronous, journal) = try again.database.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA synchronous"), try String.fetchOne(db, sql: "PRAGMA journal_mode"))
        }
        #expect(synchronous == 2)
        #expect(journal == "wal")
        again.close()
        let normal = try SQLiteSessionStorage(directory: directory, synchronous: .normal, logger: log.logger)
        #expect(try normal.database.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") } == 1)
        normal.close()
    }

    @Test func aClosedStorageRefusesWork() throws {
        let storage = try open()
        storage.close()
        #expect(throws: StorageError.closed) { try storage.list() }
        #expect(throws: StorageError.closed) { try storage.create(newRecord()) }
    }

    @Test func aGarbageFileIsMovedAsideAndAFreshOneStarted() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let storage = try open()
        #expect(try storage.list().isEmpty)
        try storage.create(newRecord("new"))
        #expect(try storage.list().map(\.id) == ["new"])
        let error = try #require(log.messages().first)
        #expect(error.contains("is damaged"))
        #expect(error.contains("moved it aside"))
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(files.contains { $0.hasPrefix("\(SQLiteSessionStorage.fileName).damaged-") })
        storage.close()
    }

    @Test func aTruncatedFileIsMovedAsideAndWhatCanBeReadIsKept() throws {
        let storage = try open()
        // Sessions with small snapshots first, then sessions with long logs, on later pages.
        let ids = (0..<60).map { String(format: "s%02d", $0) }
        try storage.write(ids.map { .create(newRecord($0)) })
        try storage.write(ids.prefix(20).map { .snapshot(session: $0, snapshot(1)) })
        let long = StoredCommit(version: 1, actions: Data(repeating: 0x20, count: 3_000))
        for id in ids.dropFirst(20) { try storage.append([long], to: id) }
        storage.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        // Two thirds: the log's interior pages (the table grew a column and a neighbour in schema 7) stay whole.
        try handle.truncate(atOffset: UInt64(size * 2 / 3))
        try handle.close()

        let reopened = try open()
        let error = try #require(log.messages().first)
        #expect(error.contains("is damaged"))
        let kept = try reopened.list().count
        #expect(kept >= 20 && kept < 60, "kept \(kept)")
        #expect(try reopened.load("s00")?.snapshot == snapshot(1))
        let recovered = try #require(log.messages(atLeast: .notice).last)
        #expect(recovered.contains("recovered \(kept) of"))
        try reopened.create(newRecord("after"))
        #expect(try reopened.load("after") != nil)
        reopened.close()
    }

    @Test func aForeignDatabaseIsMovedAside() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let foreign = try DatabaseQueue(path: path)
        try foreign.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT)") }
        try foreign.close()
        let storage = try open()
        #expect(log.messages().first?.contains("not one of sessions") == true)
        #expect(try storage.list().isEmpty)
        storage.close()
    }

    @Test func aNewerSchemaIsRefusedAndLeftAlone() throws {
        try open().close()
        let database = try DatabaseQueue(path: path)
        try database.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
        try database.close()
        #expect {
            try self.open()
        } throws: { error in
            (error as? StorageError)?.isIncompatible == true && "\(error)".contains("schema version 99")
        }
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func aVersionOneFileIsMigratedWithItsTokensHashedAndKeysStored() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE sessions (id TEXT PRIMARY KEY NOT NULL, token TEXT NOT NULL, epoch TEXT NOT NULL,
                        created REAL NOT NULL, format INTEGER NOT NULL) WITHOUT ROWID;
                    CREATE TABLE snapshots (session TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL,
                        format INTEGER NOT NULL, state_type TEXT NOT NULL, state_version INTEGER NOT NULL,
                        state BLOB NOT NULL) WITHOUT ROWID;
                    CREATE TABLE log (session TEXT NOT NULL, version INTEGER NOT NULL, format INTEGER NOT NULL,
                        actions BLOB NOT NULL, PRIMARY KEY (session, version)) WITHOUT ROWID;
                    INSERT INTO sessions VALUES ('a', 'secret-token-of-a', 'ea', 1000, 1);
                    PRAGMA user_version = 1;
                    """)
            try db.execute(
                sql: "INSERT INTO log VALUES ('a', 1, 1, ?)", arguments: [commit(1).actions])
        }
        try old.close()

        let storage = try open()
        let stored = try #require(try storage.load("a"))
        #expect(stored.record.tokenHash == Hashing.tokenHash("secret-token-of-a"))
        #expect(stored.log == [commit(1)])
        let key = StoredIdempotencyKey(key: "k", digest: [1, 2, 3], version: 2)
        try storage.write([
            .append(session: "a", commits: [commit(2)]), .remember(session: "a", key),
            .answer(session: "a", key: "k", answer: Data("{}".utf8)),
        ])
        var answered = key
        answered.answer = Data("{}".utf8)
        #expect(try storage.load("a")?.keys == [answered])
        storage.close()

        let check = try DatabaseQueue(path: path)
        try check.read { db in
            #expect(try Int.fetchOne(db, sql: "PRAGMA user_version") == SQLiteSessionStorage.schemaVersion)
            let columns = try Row.fetchAll(db, sql: "SELECT * FROM sessions").flatMap { row in
                row.databaseValues.map(\.description)
            }
            #expect(!columns.contains { $0.contains("secret-token") })
        }
        try check.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.firstRange(of: Data("secret-token-of-a".utf8)) == nil)
    }

    @Test func onlyTheLatestKeysOfASessionAreKept() throws {
        let storage = try open()
        try storage.write([.create(newRecord("a"))])
        for version in UInt64(1)...5 {
            try storage.write([
                .remember(session: "a", StoredIdempotencyKey(key: "k\(version)", digest: [], version: version))
            ])
        }
        try storage.write([.snapshot(session: "a", snapshot(5)), .forgetKeys(session: "a", keeping: 2)])
        #expect(try storage.load("a")?.keys.map(\.key) == ["k4", "k5"])
        try storage.delete("a")
        try storage.write([.create(newRecord("a"))])
        #expect(try storage.load("a")?.keys == [])
    }
}
