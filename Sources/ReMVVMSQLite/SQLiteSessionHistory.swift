import Foundation
import GRDB
import ReMVVMPersistence

/// The sessions of an SQLite file, read without changing it (no migration, no checkpoint): what
/// `remvvm-server verify-upgrade` rebuilds before a deploy.
public final class SQLiteSessionHistory: SessionHistorySource {
    private let database: DatabaseQueue
    /// The file's schema version: before 7 there are no digests and no previous snapshots.
    private let schema: Int

    /// Opens the file at `path` read-only.
    ///
    /// - Throws: ``StorageError/unavailable(_:)`` when it cannot be opened, ``StorageError/incompatible(_:)`` when
    ///   a newer server wrote it.
    public init(path: String) throws(StorageError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .unavailable("no file at '\(path)'") }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "remvvm.sessions.history"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            schema = try database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
        } catch {
            throw SQLiteSessionStorage.storageError(error)
        }
        guard schema <= SQLiteSessionStorage.schemaVersion else {
            try? database.close()
            throw .incompatible(
                "the session database has schema version \(schema), newer than this build reads "
                    + "(\(SQLiteSessionStorage.schemaVersion))")
        }
        guard schema >= 1 else {
            try? database.close()
            throw .corrupt("'\(path)' holds no sessions")
        }
    }

    /// The ids of every stored session, oldest first.
    public func sessionIDs() throws(StorageError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT id FROM sessions ORDER BY created, id") }
    }

    /// One session's snapshots and log, read in one transaction.
    public func history(_ id: String) throws(StorageError) -> StoredHistory? {
        let schema = self.schema
        return try read { db in
            guard let session = try SQLiteSessionStorage.session(id, in: db) else { return nil }
            guard schema >= 7,
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM previous_snapshots WHERE session = ?", arguments: [id])
            else {
                let log = try SQLiteSessionStorage.log(id, after: 0, in: db)
                return StoredHistory(record: session.record, previous: nil, latest: session.snapshot, log: log)
            }
            let previous = SQLiteSessionStorage.storedSnapshot(row)
            let log = try SQLiteSessionStorage.log(id, after: previous.version, in: db)
            return StoredHistory(record: session.record, previous: previous, latest: session.snapshot, log: log)
        }
    }

    /// Closes the file.
    public func close() { try? database.close() }

    private func read<Result>(_ body: (Database) throws -> Result) throws(StorageError) -> Result {
        do {
            return try database.read(body)
        } catch {
            throw SQLiteSessionStorage.storageError(error)
        }
    }
}
