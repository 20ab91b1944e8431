import Foundation
import GRDB
import ReMVVMPersistence

extension SQLiteSessionStorage {
    static func records(in db: Database) throws -> [SessionRecord] {
        try Row.fetchAll(db, sql: "SELECT id, token_hash, epoch, created, format FROM sessions ORDER BY created, id")
            .map(record)
    }

    static func session(_ id: String, in db: Database) throws -> StoredSession? {
        let row = try Row.fetchOne(
            db, sql: "SELECT id, token_hash, epoch, created, format FROM sessions WHERE id = ?", arguments: [id])
        guard let row else { return nil }
        let snapshot = try Row.fetchOne(
            db,
            sql: "SELECT version, format, state_type, state_version, state FROM snapshots WHERE session = ?",
            arguments: [id]
        ).map { row in
            StoredSnapshot(
                version: UInt64(bitPattern: row["version"]), format: row["format"], stateType: row["state_type"],
                stateVersion: row["state_version"], state: row["state"])
        }
        let after = Int64(bitPattern: snapshot?.version ?? 0)
        let log = try Row.fetchAll(
            db,
            sql: "SELECT version, format, actions FROM log WHERE session = ? AND version > ? ORDER BY version",
            arguments: [id, after]
        ).map { row in
            StoredCommit(version: UInt64(bitPattern: row["version"]), format: row["format"], actions: row["actions"])
        }
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

    static func apply(_ change: StorageChange, in db: Database) throws {
        switch change {
        case .create(let record):
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO sessions (id, token_hash, epoch, created, format) VALUES (?, ?, ?, ?, ?)"
            ).execute(arguments: [
                record.id, record.tokenHash, record.epoch, record.created.timeIntervalSince1970, record.format,
            ])
        case .append(let session, let commits):
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO log (session, version, format, actions) VALUES (?, ?, ?, ?)")
            for commit in commits {
                try insert.execute(arguments: [
                    session, Int64(bitPattern: commit.version), commit.format, commit.actions,
                ])
            }
        case .snapshot(let session, let snapshot):
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO snapshots (session, version, format, state_type, state_version, state)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                session, Int64(bitPattern: snapshot.version), snapshot.format, snapshot.stateType,
                snapshot.stateVersion, snapshot.state,
            ])
            try db.cachedStatement(sql: "DELETE FROM log WHERE session = ? AND version <= ?")
                .execute(arguments: [session, Int64(bitPattern: snapshot.version)])
        case .delete(let session):
            for table in [
                "log WHERE session", "snapshots WHERE session", "idempotency WHERE session", "sessions WHERE id",
            ] {
                try db.cachedStatement(sql: "DELETE FROM \(table) = ?").execute(arguments: [session])
            }
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

    private static func record(_ row: Row) throws -> SessionRecord {
        SessionRecord(
            id: row["id"], tokenHash: row["token_hash"], epoch: row["epoch"],
            created: Date(timeIntervalSince1970: row["created"]), format: row["format"])
    }
}
