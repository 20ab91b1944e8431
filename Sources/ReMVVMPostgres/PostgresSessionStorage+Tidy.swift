import Foundation
import ReMVVMPersistence

/// The tidy's deletions: several nodes run them at once, each taking the expired rows no other holds.
extension PostgresSessionStorage {
    /// Locks up to `$2` sessions that expired before `$1` and that nobody else has locked (another node's tidy,
    /// a takeover, a batch's fence check), deletes them with their snapshots, logs and keys, and returns their
    /// ids: one statement, so one transaction.
    private static let deleteExpiredStatement = """
        WITH doomed AS (
            SELECT id FROM sessions WHERE expires_at < $1::double precision
            ORDER BY expires_at LIMIT $2::bigint FOR UPDATE SKIP LOCKED
        ), gone AS (
            DELETE FROM sessions s USING doomed d WHERE s.id = d.id RETURNING s.id
        ), snapshots_gone AS (
            DELETE FROM snapshots WHERE session IN (SELECT id FROM gone)
        ), previous_gone AS (
            DELETE FROM previous_snapshots WHERE session IN (SELECT id FROM gone)
        ), log_gone AS (
            DELETE FROM log WHERE session IN (SELECT id FROM gone)
        ), keys_gone AS (
            DELETE FROM idempotency WHERE session IN (SELECT id FROM gone)
        )
        SELECT id FROM gone
        """

    /// Deletes at most `limit` sessions that expired before `now`, each with its snapshot, log and idempotency
    /// keys, in one transaction on a connection of its own; returns their ids. Rows another transaction holds
    /// are skipped (`FOR UPDATE SKIP LOCKED`), so nodes tidying at once share the work and delete each session
    /// once; a session this node held is forgotten with its fence.
    public func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] {
        let rows = try access(tidySlot) { connection throws(PostgresError) in
            try connection.execute(
                Self.deleteExpiredStatement, [.double(now.timeIntervalSince1970), .int64(Int64(max(limit, 1)))])
        }
        let ids: [String]
        do throws(PostgresError) {
            ids = try (0..<rows.count).map { row throws(PostgresError) in try rows.text(row, 0) }
        } catch {
            throw Self.storageError(error)
        }
        forgetFences(ids)
        return ids
    }

    /// Deletes at most `limit` topic counters that no retained message is left for, skipping those an append
    /// holds; returns how many. An append keeps each topic's last message, so only a topic whose messages were
    /// all dropped as idle loses its counter.
    public func pruneTopicCounters(limit: Int) throws(StorageError) -> Int {
        let rows = try access(tidySlot) { connection throws(PostgresError) in
            try connection.execute(
                """
                DELETE FROM topic_counters WHERE topic IN (
                    SELECT c.topic FROM topic_counters c
                    WHERE NOT EXISTS (SELECT 1 FROM topic_messages m WHERE m.topic = c.topic)
                    LIMIT $1::bigint FOR UPDATE SKIP LOCKED)
                """, [.int64(Int64(max(limit, 1)))])
        }
        return rows.affected
    }
}
