import Foundation
import ReMVVMPersistence

/// What each node reads, in `node_versions`: during a rolling deploy, the newer nodes write only what every live
/// node reads.
extension PostgresSessionStorage {
    /// States this node's versions, and that it is alive now.
    public func announce(stateVersion: Int, actionVersions: [String: Int]) throws(StorageError) {
        let versions = Self.json(actionVersions)
        let node = self.node
        _ = try access(tidySlot) { connection throws(PostgresError) in
            try connection.execute(
                """
                INSERT INTO node_versions (node, state_version, action_versions, seen)
                VALUES ($1::text, $2::integer, $3::text, now())
                ON CONFLICT (node) DO UPDATE SET state_version = EXCLUDED.state_version,
                    action_versions = EXCLUDED.action_versions, seen = EXCLUDED.seen
                """, [.text(node), .int32(Int32(stateVersion)), .text(versions)])
        }
    }

    /// The versions of every node that announced itself within the last `seconds`; and, as reading version 1 of
    /// the state and of every action, each node that holds sessions without having announced itself (a build from
    /// before the announcements, during the deploy that brings them).
    public func liveVersions(within seconds: Double) throws(StorageError) -> [NodeVersions] {
        let rows = try access(tidySlot) { connection throws(PostgresError) in
            try connection.execute(
                """
                SELECT node, state_version, action_versions FROM node_versions
                WHERE seen > now() - make_interval(secs => $1::double precision)
                UNION ALL
                SELECT DISTINCT owner, 1, '{}' FROM sessions
                WHERE owner IS NOT NULL AND owner NOT IN (SELECT node FROM node_versions)
                ORDER BY 1
                """, [.double(seconds)])
        }
        do throws(PostgresError) {
            return try (0..<rows.count).map { row throws(PostgresError) in
                let text = try rows.text(row, 2)
                let versions = (try? JSONDecoder().decode([String: Int].self, from: Data(text.utf8))) ?? [:]
                return NodeVersions(
                    node: try rows.text(row, 0), stateVersion: Int(try rows.int32(row, 1)), actionVersions: versions)
            }
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Removes this node's versions: it stops.
    public func retire() throws(StorageError) {
        let node = self.node
        _ = try access(tidySlot) { connection throws(PostgresError) in
            try connection.execute("DELETE FROM node_versions WHERE node = $1::text", [.text(node)])
        }
    }

    private static func json(_ versions: [String: Int]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Strings and integers only: encoding cannot fail.
        return (try? encoder.encode(versions)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
