import Foundation
import GRDB
import ReMVVM

extension SQLiteSessionStorage: TopicLog {
    /// Every retained topic message, each topic's oldest first.
    public func retainedTopicMessages() throws -> [TopicLogEntry] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT topic, sequence, action FROM topic_log ORDER BY topic, sequence").map {
                row in
                TopicLogEntry(topic: row["topic"], sequence: row["sequence"], action: row["action"])
            }
        }
    }

    /// Appends a message to `topic` after its last one and deletes all but its latest `retaining`, in one
    /// transaction (fsynced with ``Synchronous/full``); the topic's last message is always kept, so the
    /// order goes on after a restart.
    public func append(topic: String, action: Data, retaining: Int) throws -> UInt64 {
        try database.write { db in
            let last = try Int64.fetchOne(
                db, sql: "SELECT MAX(sequence) FROM topic_log WHERE topic = ?", arguments: [topic])
            let sequence = (last ?? 0) + 1
            try db.execute(
                sql: "INSERT INTO topic_log (topic, sequence, action) VALUES (?, ?, ?)",
                arguments: [topic, sequence, action])
            try db.execute(
                sql: "DELETE FROM topic_log WHERE topic = ? AND sequence <= ?",
                arguments: [topic, sequence - Int64(max(retaining, 1))])
            return UInt64(sequence)
        }
    }
}
