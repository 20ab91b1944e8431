import Foundation
import GRDB
import ReMVVMPersistence

extension SQLiteSessionStorage {
    static func records(in db: Database) throws -> [SessionRecord] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT id, token_hash, epoch, created, format, expires_at, identity FROM sessions ORDER BY created, id"
        )
        .map(record)
    }

    static func session(_ id: String, in db: Database) throws -> StoredSession? {
        let row = try Row.fetchOne(
            db, sql: "SELECT * FROM sessions WHERE id = ?", arguments: [id])
        guard let row else { return nil }
        let snapshot = try Row.fetchOne(db, sql: "SELECT * FROM snapshots WHERE session = ?", arguments: [id]).map(
            storedSnapshot)
        let log = try self.log(id, after: snapshot?.version ?? 0, in: db)
        let keys = try Row.fetchAll(
            db, sql: "SELECT key, digest, version, answer FROM idempotency WHERE session = ? ORDER BY version",
            arguments: [id]
        ).map { row in
            StoredIdempotencyKey(
                key: row["key"], digest: [UInt8](row["digest"] as Data), version: UInt64(bitPattern: row["version"]),
                answer: row["answer"])
        }
        return StoredSession(record: try record(row), snapshot: snapshot, log: log, keys: keys)
    }

    /// A `snapshots` or `previous_snapshots` row (without a digest before schema 7, as in a salvaged older file).
    static func storedSnapshot(_ row: Row) -> StoredSnapshot {
        StoredSnapshot(
            version: UInt64(bitPattern: row["version"]), format: row["format"], stateType: row["state_type"],
            stateVersion: row["state_version"], state: row["state"],
            digest: (row["digest"] as Data?).map { [UInt8]($0) })
    }

    /// The session's log entries after `version`, in order.
    static func log(_ id: String, after version: UInt64, in db: Database) throws -> [StoredCommit] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM log WHERE session = ? AND version > ? ORDER BY version",
            arguments: [id, Int64(bitPattern: version)]
        ).map { row in
            StoredCommit(
                version: UInt64(bitPattern: row["version"]), format: row["format"], actions: row["actions"],
                versions: try StoredCommit.versions(fromJSON: row["versions"]))
        }
    }

    static func apply(_ change: StorageChange, in db: Database) throws {
        switch change {
        case .create(let record):
            // A repair writes the identity again: its expiry never moves earlier.
            try db.cachedStatement(
                sql: """
                    INSERT INTO sessions (id, token_hash, epoch, created, format, expires_at, identity)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET token_hash = excluded.token_hash, epoch = excluded.epoch,
                        created = excluded.created, format = excluded.format, identity = excluded.identity,
                        expires_at = max(expires_at, excluded.expires_at)
                    """
            ).execute(arguments: [
                record.id, record.tokenHash, record.epoch, record.created.timeIntervalSince1970, record.format,
                record.expires.timeIntervalSince1970, record.identityJSON,
            ])
        case .touch(let session, let expires):
            try db.cachedStatement(sql: "UPDATE sessions SET expires_at = max(expires_at, ?) WHERE id = ?")
                .execute(arguments: [expires.timeIntervalSince1970, session])
        case .append(let session, let commits):
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO log (session, version, format, actions, versions) VALUES (?, ?, ?, ?, ?)")
            for commit in commits {
                try insert.execute(arguments: [
                    session, Int64(bitPattern: commit.version), commit.format, commit.actions, commit.versionsJSON,
                ])
            }
        case .snapshot(let session, let snapshot):
            // The snapshot it replaces stays as the previous one, with the log since it: a later build replays
            // that log from it and must reach this one's digest (`verify-upgrade`).
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO previous_snapshots
                        (session, version, format, state_type, state_version, state, digest)
                    SELECT session, version, format, state_type, state_version, state, digest FROM snapshots
                    WHERE session = ? AND version < ?
                    """
            ).execute(arguments: [session, Int64(bitPattern: snapshot.version)])
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO snapshots (session, version, format, state_type, state_version, state, digest)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                session, Int64(bitPattern: snapshot.version), snapshot.format, snapshot.stateType,
                snapshot.stateVersion, snapshot.state, snapshot.digest.map { Data($0) },
            ])
            try db.cachedStatement(
                sql: """
                    DELETE FROM log WHERE session = ?1 AND version <= coalesce(
                        (SELECT version FROM previous_snapshots WHERE session = ?1), 0)
                    """
            ).execute(arguments: [session])
        case .delete(let session):
            try delete(session, in: db)
        case .remember(let session, let key):
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO idempotency (session, key, digest, version, answer) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [session, key.key, Data(key.digest), Int64(bitPattern: key.version), key.answer])
        case .answer(let session, let key, let answer):
            try db.cachedStatement(sql: "UPDATE idempotency SET answer = ? WHERE session = ? AND key = ?")
                .execute(arguments: [answer, session, key])
        case .forgetKeys(let session, let keeping):
            try db.cachedStatement(
                sql: """
                    DELETE FROM idempotency WHERE session = ?1 AND version < (
                        SELECT version FROM idempotency WHERE session = ?1 ORDER BY version DESC LIMIT 1 OFFSET ?2 - 1)
                    """
            ).execute(arguments: [session, keeping])
        case .publish(_, let publication):
            publication.position = try appendTopicMessage(
                topic: publication.topic, action: publication.action, retaining: publication.retaining, in: db)
        }
    }

    /// Deletes everything stored for the session.
    static func delete(_ session: String, in db: Database) throws {
        for table in [
            "log WHERE session", "snapshots WHERE session", "previous_snapshots WHERE session",
            "idempotency WHERE session", "sessions WHERE id",
        ] {
            try db.cachedStatement(sql: "DELETE FROM \(table) = ?").execute(arguments: [session])
        }
    }

    /// Deletes at most `limit` sessions that expired before `now` (seconds since 1970), oldest expiry first;
    /// returns their ids. Without an index on the expiry: every stored session is also in memory (restored at
    /// start), which deletes it when it expires, so the tidy rarely finds any, and scanning the sessions each round
    /// costs less than keeping an index current at every creation and touch.
    static func deleteExpired(before now: Double, limit: Int, in db: Database) throws -> [String] {
        let ids = try String.fetchAll(
            db, sql: "SELECT id FROM sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
            arguments: [now, max(limit, 1)])
        for id in ids { try delete(id, in: db) }
        return ids
    }

    private static func record(_ row: Row) throws -> SessionRecord {
        SessionRecord(
            id: row["id"], tokenHash: row["token_hash"], epoch: row["epoch"],
            created: Date(timeIntervalSince1970: row["created"]), format: row["format"],
            // Absent from a damaged file of an older schema that is salvaged: the default lifetime then.
            expires: (row["expires_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            // Absent before schema 6 (a salvaged older file): an anonymous session.
            identity: try SessionRecord.identity(fromJSON: row["identity"]))
    }
}
