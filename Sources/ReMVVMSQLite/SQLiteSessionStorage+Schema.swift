import Foundation
import GRDB
import Glibc
import ReMVVMPersistence

extension SQLiteSessionStorage {
    /// The schema version, in `PRAGMA user_version`: 1 the sessions, snapshots and log; 2 adds the
    /// idempotency keys; 3 stores tokens as SHA-256 hashes (``SessionRecord/tokenHash``); 4 adds the
    /// topics' retained messages; 5 adds each session's expiry (``SessionRecord/expires``), set for the sessions
    /// already stored to the migration's time plus ``SessionRecord/defaultLifetime``; 6 adds each session's
    /// identity (``SessionRecord/identity``, JSON; NULL for an anonymous session, as every session stored before),
    /// only if the column is missing; 7 keeps what a later build's replay is checked against (`verify-upgrade`):
    /// each snapshot's `digest`, the snapshot before the latest (`previous_snapshots`) with the log since it, and
    /// each log entry's action `versions`; each only if missing.
    static let schemaVersion = 7

    /// Opens the file, creates or checks the schema and runs SQLite's quick integrity check.
    static func open(_ path: String, synchronous: Synchronous) throws(StorageError) -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "remvvm.sessions"
        configuration.journalMode = .wal
        try ownerOnly(path)
        do {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            // After GRDB's own WAL set-up, which picks NORMAL.
            try database.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
                // Freed and rewritten cells are zeroed: the tokens a migration replaced by their hashes
                // leave no trace in the file.
                try db.execute(sql: "PRAGMA secure_delete = ON")
            }
            try database.write { db in try migrate(db) }
            let problems = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
            guard problems == ["ok"] else {
                try? database.close()
                throw StorageError.corrupt("integrity check failed: \(problems.prefix(3).joined(separator: "; "))")
            }
            return database
        } catch {
            throw storageError(error)
        }
    }

    /// Makes the database file readable and writable by its owner only (it holds token hashes and every session's
    /// state): a new file is created 0600 whatever the umask, and an existing one (with its `-wal` and `-shm`) is
    /// narrowed to 0600. SQLite creates the `-wal` and `-shm` files with the database file's mode.
    static func ownerOnly(_ path: String) throws(StorageError) {
        let descriptor = Glibc.open(path, O_CREAT | O_RDONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw .unavailable("cannot create the session database '\(path)': errno \(errno)")
        }
        Glibc.close(descriptor)
        for file in [path, path + "-wal", path + "-shm"] where chmod(file, 0o600) != 0 && errno != ENOENT {
            throw .unavailable("cannot make the session database '\(file)' owner-only: errno \(errno)")
        }
    }

    /// Creates the tables in a new file and brings an older one up to date, in one transaction;
    /// refuses a file of a newer server or of something else.
    private static func migrate(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        guard version <= schemaVersion else {
            throw StorageError.incompatible(
                "the session database has schema version \(version), newer than this server reads (\(schemaVersion))")
        }
        if version == 0 { try createFirstSchema(db) }
        if version < 2 {
            try db.execute(
                sql: """
                    CREATE TABLE idempotency (
                        session TEXT NOT NULL,
                        key TEXT NOT NULL,
                        digest BLOB NOT NULL,
                        version INTEGER NOT NULL,
                        answer BLOB,
                        PRIMARY KEY (session, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX idempotency_by_version ON idempotency (session, version);
                    """)
        }
        if version < 3 { try hashTokens(db) }
        if version < 4 {
            try db.execute(
                sql: """
                    CREATE TABLE topic_log (
                        topic TEXT NOT NULL,
                        sequence INTEGER NOT NULL,
                        action BLOB NOT NULL,
                        PRIMARY KEY (topic, sequence)
                    ) WITHOUT ROWID;
                    """)
        }
        if version < 5 {
            try db.execute(sql: "ALTER TABLE sessions ADD COLUMN expires_at REAL NOT NULL DEFAULT 0")
            try db.execute(
                sql: "UPDATE sessions SET expires_at = ?",
                arguments: [Date().timeIntervalSince1970 + SessionRecord.defaultLifetime])
        }
        if version < 6, try !db.columns(in: "sessions").contains(where: { $0.name == "identity" }) {
            try db.execute(sql: "ALTER TABLE sessions ADD COLUMN identity TEXT")
        }
        if version < 7 {
            // Each only if missing, as for schema 6.
            if try !db.columns(in: "snapshots").contains(where: { $0.name == "digest" }) {
                try db.execute(sql: "ALTER TABLE snapshots ADD COLUMN digest BLOB")
            }
            if try !db.columns(in: "log").contains(where: { $0.name == "versions" }) {
                try db.execute(sql: "ALTER TABLE log ADD COLUMN versions TEXT")
            }
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS previous_snapshots (
                        session TEXT PRIMARY KEY NOT NULL,
                        version INTEGER NOT NULL,
                        format INTEGER NOT NULL,
                        state_type TEXT NOT NULL,
                        state_version INTEGER NOT NULL,
                        state BLOB NOT NULL,
                        digest BLOB
                    ) WITHOUT ROWID;
                    """)
        }
        if version < schemaVersion { try db.execute(sql: "PRAGMA user_version = \(schemaVersion)") }
    }

    /// Replaces every stored token by its SHA-256 hash (schema 3).
    private static func hashTokens(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sessions RENAME COLUMN token TO token_hash")
        let rows = try Row.fetchAll(db, sql: "SELECT id, token_hash FROM sessions")
        let update = try db.makeStatement(sql: "UPDATE sessions SET token_hash = ? WHERE id = ?")
        for row in rows {
            let token: String = row["token_hash"]
            try update.execute(arguments: [Hashing.tokenHash(token), row["id"] as String])
        }
    }

    /// Schema version 1, which later versions migrate from.
    private static func createFirstSchema(_ db: Database) throws {
        let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
        guard objects == 0 else {
            throw StorageError.corrupt("the file is an SQLite database, but not one of sessions")
        }
        try db.execute(
            sql: """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    token TEXT NOT NULL,
                    epoch TEXT NOT NULL,
                    created REAL NOT NULL,
                    format INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE snapshots (
                    session TEXT PRIMARY KEY NOT NULL,
                    version INTEGER NOT NULL,
                    format INTEGER NOT NULL,
                    state_type TEXT NOT NULL,
                    state_version INTEGER NOT NULL,
                    state BLOB NOT NULL
                ) WITHOUT ROWID;
                CREATE TABLE log (
                    session TEXT NOT NULL,
                    version INTEGER NOT NULL,
                    format INTEGER NOT NULL,
                    actions BLOB NOT NULL,
                    PRIMARY KEY (session, version)
                ) WITHOUT ROWID;
                """)
    }

    /// A database error as a storage error: damage, a newer schema, or anything else.
    static func storageError(_ error: any Error) -> StorageError {
        if let error = error as? StorageError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode.primaryResultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return .corrupt(error.message ?? "\(error)")
            default:
                return .unavailable("\(error)")
            }
        }
        return .unavailable("\(error)")
    }
}
