import Foundation
import ReMVVM
import ReMVVMPersistence

extension PostgresSessionStorage {
    /// A `SELECT id, token_hash, epoch, created, format` row, with `expires_at` in column `expires` and `identity`
    /// in column `identity` if given.
    static func record(
        _ rows: PostgresRows, _ row: Int, expires: Int? = nil, identity: Int? = nil
    ) throws(PostgresError) -> SessionRecord {
        let json = identity.flatMap { rows.optionalBytes(row, $0) }.map { String(decoding: $0, as: UTF8.self) }
        let stored: Identity?
        do {
            stored = try SessionRecord.identity(fromJSON: json)
        } catch {
            throw PostgresError(message: "\(error)")
        }
        return SessionRecord(
            id: try rows.text(row, 0), tokenHash: try rows.text(row, 1), epoch: try rows.text(row, 2),
            created: Date(timeIntervalSince1970: try rows.double(row, 3)), format: Int(try rows.int32(row, 4)),
            expires: try expires.map { column throws(PostgresError) in
                Date(timeIntervalSince1970: try rows.double(row, column))
            }, identity: stored)
    }

    /// A log row's `versions` (``StoredCommit/versionsJSON``).
    static func versions(_ bytes: [UInt8]?) throws(PostgresError) -> [String: Int] {
        do {
            return try StoredCommit.versions(fromJSON: bytes.map { String(decoding: $0, as: UTF8.self) })
        } catch {
            throw PostgresError(message: "\(error)")
        }
    }

    /// The channel a takeover is announced on, with `<session id> <new owner> <fence>` as the payload.
    static let takeoverChannel = "remvvm_sessions"

    /// Makes `node` the session's owner with the next fence, announces it on ``takeoverChannel``
    /// (delivered at COMMIT), and reads the session; nil when it is not stored, or when `tokenHash`
    /// is given and is not its token's (then nothing moves, and nothing is read).
    ///
    /// One round trip: the statements go in one pipeline with one Sync, so they are one implicit transaction
    /// (as BEGIN ... COMMIT was), and the reads see the row the first statement locked and moved.
    ///
    /// The commit does not wait for its WAL flush (`synchronous_commit` off on the loading connections, which do
    /// nothing else): a reconnect storm takes thousands of sessions over at once, and a flush each capped them at a
    /// few hundred a second. Nothing this node acknowledges rests on the takeover alone: every acknowledgement waits
    /// for a writer batch, whose synchronous commit flushes the WAL up to and past the takeover. Lost in a crash of
    /// PostgreSQL, the takeover leaves the older fence, and this node's writes are refused (fenced), never wrong.
    static func takeOver(
        _ id: String, node: String, tokenHash: String? = nil, in connection: PostgresConnection
    ) throws(PostgresError) -> (StoredSession, Int64)? {
        let owned =
            "EXISTS (SELECT 1 FROM sessions WHERE id = $1::text AND ($2::text IS NULL OR token_hash = $2::text))"
        let token = tokenHash.map(PostgresValue.text) ?? .null
        let results = try connection.pipeline([
            ("SET synchronous_commit = off", []),
            (
                """
                WITH taken AS (
                    UPDATE sessions SET owner = $2::text, fence = fence + 1
                    WHERE id = $1::text AND ($3::text IS NULL OR token_hash = $3::text)
                    RETURNING id, token_hash, epoch, created, format, fence, expires_at, identity
                )
                SELECT id, token_hash, epoch, created, format, fence, expires_at, identity,
                    pg_notify($4::text, id || ' ' || $2::text || ' ' || fence::text)
                FROM taken
                """, [.text(id), .text(node), token, .text(takeoverChannel)]
            ),
            (
                """
                SELECT version, format, state_type, state_version, state FROM snapshots
                WHERE session = $1::text AND \(owned)
                """, [.text(id), token]
            ),
            (
                """
                SELECT version, format, actions, versions FROM log
                WHERE session = $1::text AND \(owned) AND version > coalesce(
                    (SELECT version FROM snapshots WHERE session = $1::text), 0) ORDER BY version
                """, [.text(id), token]
            ),
            (
                """
                SELECT key, digest, version, answer FROM idempotency WHERE session = $1::text AND \(owned)
                ORDER BY version
                """, [.text(id), token]
            ),
        ])
        let (session, snapshots, log, keys) = (results[1], results[2], results[3], results[4])
        guard session.count == 1 else { return nil }
        let record = try record(session, 0, expires: 6, identity: 7)
        let fence = try session.int64(0, 5)
        let snapshot =
            try snapshots.count == 0
            ? nil
            : StoredSnapshot(
                version: snapshots.version(0, 0), format: Int(snapshots.int32(0, 1)), stateType: snapshots.text(0, 2),
                stateVersion: Int(snapshots.int32(0, 3)), state: Data(snapshots.bytes(0, 4)))
        let commits = try (0..<log.count).map { row throws(PostgresError) in
            StoredCommit(
                version: try log.version(row, 0), format: Int(try log.int32(row, 1)),
                actions: Data(try log.bytes(row, 2)), versions: try versions(log.optionalBytes(row, 3)))
        }
        let stored = try (0..<keys.count).map { row throws(PostgresError) in
            StoredIdempotencyKey(
                key: try keys.text(row, 0), digest: try keys.bytes(row, 1), version: try keys.version(row, 2),
                answer: keys.optionalBytes(row, 3).map { Data($0) })
        }
        return (StoredSession(record: record, snapshot: snapshot, log: commits, keys: stored), fence)
    }
}
