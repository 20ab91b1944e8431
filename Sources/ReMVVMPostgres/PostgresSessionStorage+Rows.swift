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

    /// The channel a takeover is announced on, with `<session id> <new owner> <fence>` as the payload.
    static let takeoverChannel = "remvvm_sessions"

    /// Makes `node` the session's owner with the next fence, announces it on ``takeoverChannel``
    /// (delivered at COMMIT), and reads the session; nil when it is not stored, or when `tokenHash`
    /// is given and is not its token's (then nothing moves).
    static func takeOver(
        _ id: String, node: String, tokenHash: String? = nil, in connection: PostgresConnection
    ) throws(PostgresError) -> (StoredSession, Int64)? {
        let session = try connection.execute(
            """
            UPDATE sessions SET owner = $2::text, fence = fence + 1
            WHERE id = $1::text AND ($3::text IS NULL OR token_hash = $3::text)
            RETURNING id, token_hash, epoch, created, format, fence, expires_at, identity
            """, [.text(id), .text(node), tokenHash.map(PostgresValue.text) ?? .null])
        guard session.count == 1 else { return nil }
        let record = try record(session, 0, expires: 6, identity: 7)
        let fence = try session.int64(0, 5)
        try connection.execute(
            "SELECT pg_notify($1::text, $2::text)", [.text(takeoverChannel), .text("\(id) \(node) \(fence)")])
        let snapshots = try connection.execute(
            "SELECT version, format, state_type, state_version, state FROM snapshots WHERE session = $1::text",
            [.text(id)])
        let snapshot =
            try snapshots.count == 0
            ? nil
            : StoredSnapshot(
                version: snapshots.version(0, 0), format: Int(snapshots.int32(0, 1)), stateType: snapshots.text(0, 2),
                stateVersion: Int(snapshots.int32(0, 3)), state: Data(snapshots.bytes(0, 4)))
        let log = try connection.execute(
            "SELECT version, format, actions FROM log WHERE session = $1::text AND version > $2::bigint ORDER BY version",
            [.text(id), .version(snapshot?.version ?? 0)])
        let commits = try (0..<log.count).map { row throws(PostgresError) in
            StoredCommit(
                version: try log.version(row, 0), format: Int(try log.int32(row, 1)),
                actions: Data(try log.bytes(row, 2)))
        }
        let keys = try connection.execute(
            "SELECT key, digest, version, answer FROM idempotency WHERE session = $1::text ORDER BY version",
            [.text(id)])
        let stored = try (0..<keys.count).map { row throws(PostgresError) in
            StoredIdempotencyKey(
                key: try keys.text(row, 0), digest: try keys.bytes(row, 1), version: try keys.version(row, 2),
                answer: keys.optionalBytes(row, 3).map { Data($0) })
        }
        return (StoredSession(record: record, snapshot: snapshot, log: commits, keys: stored), fence)
    }
}
