import Foundation
import ReMVVMPersistence
import Synchronization

/// The sessions of a PostgreSQL database, read without changing it: a read-only transaction per session, no
/// migration, no takeover (their owners keep them). What `remvvm-server verify-upgrade` rebuilds before a deploy.
public final class PostgresSessionHistory: SessionHistorySource {
    private let connection: Mutex<PostgresConnection?>
    /// The database's schema version: before 7 there are no digests and no previous snapshots.
    private let schema: Int

    /// Connects to `url` (a libpq URI) for reading only.
    ///
    /// - Throws: ``StorageError`` when PostgreSQL cannot be reached, holds no sessions or has a newer schema.
    public init(url: String, timeouts: PostgresTimeouts = PostgresTimeouts()) throws(StorageError) {
        do throws(PostgresError) {
            let connection = try PostgresConnection(
                url: url, applicationName: "remvvm-server verify-upgrade", timeouts: timeouts.lenient(.seconds(60)))
            _ = try connection.execute("SET default_transaction_read_only = on")
            let exists = try connection.execute("SELECT (to_regclass('schema_version') IS NOT NULL)::integer")
            guard try exists.int32(0, 0) == 1 else {
                connection.close()
                throw PostgresError(message: "the database holds no sessions (no schema_version table)")
            }
            let rows = try connection.execute("SELECT max(version) FROM schema_version")
            schema = rows.optionalBytes(0, 0) == nil ? 0 : Int(try rows.int32(0, 0))
            guard schema <= PostgresSessionStorage.schemaVersion else {
                connection.close()
                throw PostgresError(
                    message: "the database has schema version \(schema), newer than this build reads "
                        + "(\(PostgresSessionStorage.schemaVersion))", incompatible: true)
            }
            self.connection = Mutex(connection)
        } catch {
            throw PostgresSessionStorage.storageError(error)
        }
    }

    /// The ids of every stored session, oldest first.
    public func sessionIDs() throws(StorageError) -> [String] {
        try read { connection throws(PostgresError) in
            let rows = try connection.execute("SELECT id FROM sessions ORDER BY created, id")
            return try (0..<rows.count).map { row throws(PostgresError) in try rows.text(row, 0) }
        }
    }

    /// One session's snapshots and log, read in one read-only transaction (one round trip).
    public func history(_ id: String) throws(StorageError) -> StoredHistory? {
        let modern = schema >= 7
        let snapshotColumns = "version, format, state_type, state_version, state" + (modern ? ", digest" : "")
        let previous =
            modern
            ? "SELECT \(snapshotColumns) FROM previous_snapshots WHERE session = $1::text"
            : "SELECT \(snapshotColumns) FROM snapshots WHERE false AND session = $1::text"
        return try read { connection throws(PostgresError) -> StoredHistory? in
            let results = try connection.pipeline([
                ("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", []),
                (
                    "SELECT id, token_hash, epoch, created, format, expires_at, identity FROM sessions WHERE id = $1::text",
                    [.text(id)]
                ),
                ("SELECT \(snapshotColumns) FROM snapshots WHERE session = $1::text", [.text(id)]),
                (previous, [.text(id)]),
                (
                    "SELECT version, format, actions\(modern ? ", versions" : "") FROM log WHERE session = $1::text "
                        + "ORDER BY version", [.text(id)]
                ),
                ("COMMIT", []),
            ])
            let (session, latest, older, log) = (results[1], results[2], results[3], results[4])
            guard session.count == 1 else { return nil }
            let record = try PostgresSessionStorage.record(session, 0, expires: 5, identity: 6)
            let commits = try (0..<log.count).map { row throws(PostgresError) in
                StoredCommit(
                    version: try log.version(row, 0), format: Int(try log.int32(row, 1)),
                    actions: Data(try log.bytes(row, 2)),
                    versions: modern ? try PostgresSessionStorage.versions(log.optionalBytes(row, 3)) : [:])
            }
            return StoredHistory(
                record: record, previous: try Self.snapshot(older, digest: modern),
                latest: try Self.snapshot(latest, digest: modern), log: commits)
        }
    }

    /// Closes the connection.
    public func close() {
        connection.withLock { connection in
            connection?.close()
            connection = nil
        }
    }

    private static func snapshot(_ rows: PostgresRows, digest: Bool) throws(PostgresError) -> StoredSnapshot? {
        guard rows.count == 1 else { return nil }
        return StoredSnapshot(
            version: try rows.version(0, 0), format: Int(try rows.int32(0, 1)), stateType: try rows.text(0, 2),
            stateVersion: Int(try rows.int32(0, 3)), state: Data(try rows.bytes(0, 4)),
            digest: digest ? rows.optionalBytes(0, 5) : nil)
    }

    private func read<Result: Sendable>(_ body: (PostgresConnection) throws(PostgresError) -> Result)
        throws(StorageError) -> Result
    {
        try connection.withLock { connection throws(StorageError) -> Result in
            guard let open = connection else { throw .closed }
            do throws(PostgresError) {
                return try body(open)
            } catch {
                throw PostgresSessionStorage.storageError(error)
            }
        }
    }
}
