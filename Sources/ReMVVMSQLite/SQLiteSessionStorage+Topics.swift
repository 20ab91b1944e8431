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
            try Self.appendTopicMessage(topic: topic, action: action, retaining: retaining, in: db)
        }
    }

    /// Appends a message to `topic` after its last one and trims it to its latest `retaining`, inside the
    /// transaction of `db`: alone, or with the commit that published it (the outbox).
    static func appendTopicMessage(topic: String, action: Data, retaining: Int, in db: Database) throws -> UInt64 {
        let last = try Int64.fetchOne(
            db, sql: "SELECT MAX(sequence) FROM topic_log WHERE topic = ?", arguments: [topic])
        let sequence = (last ?? 0) + 1
        try db.cachedStatement(sql: "INSERT INTO topic_log (topic, sequence, action) VALUES (?, ?, ?)")
            .execute(arguments: [topic, sequence, action])
        try db.cachedStatement(sql: "DELETE FROM topic_log WHERE topic = ? AND sequence <= ?")
            .execute(arguments: [topic, sequence - Int64(max(retaining, 1))])
        return UInt64(sequence)
    }

    /// Deletes the messages of the topics the hub dropped, up to each one's last position then, in one
    /// transaction: a message appended since stays.
    public func forget(_ sweep: TopicSweep, retention: Duration) throws {
        guard !sweep.dropped.isEmpty else { return }
        try database.write { db in
            for dropped in sweep.dropped {
                try db.execute(
                    sql: "DELETE FROM topic_log WHERE topic = ? AND sequence <= ?",
                    arguments: [dropped.topic, Int64(clamping: dropped.last)])
            }
        }
    }
}
