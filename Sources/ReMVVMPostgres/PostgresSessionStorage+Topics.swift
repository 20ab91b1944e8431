import Foundation
import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Shared topics (``isShared``, as for sessions): the hub reads each topic from here.
extension PostgresSessionStorage: TopicLog {
    /// The channel on which an append wakes the other nodes: payload `<sequence> <topic>`.
    static let topicChannel = "remvvm_topics"

    /// Appends of any node take their turn on the topic's counter row, which the statement updates and
    /// holds until it commits: the database gives each message its sequence, and a message is visible
    /// only after every earlier one of its topic. The NOTIFY goes out at COMMIT, a wake-up only.
    static let appendStatement = """
        WITH counter AS (
            INSERT INTO topic_counters (topic, last) VALUES ($1::text, 1)
            ON CONFLICT (topic) DO UPDATE SET last = topic_counters.last + 1, touched = now()
            RETURNING last
        ), appended AS (
            INSERT INTO topic_messages (topic, sequence, action) SELECT $1::text, last, $2::bytea FROM counter
        ), trimmed AS (
            DELETE FROM topic_messages WHERE topic = $1::text AND sequence <= (SELECT last FROM counter) - $3::bigint
        )
        SELECT last, pg_notify('\(topicChannel)', last::text || ' ' || $1::text) FROM counter
        """

    /// Read per topic instead (``messages(of:after:)``): nothing is loaded at start.
    public func retainedTopicMessages() throws -> [TopicLogEntry] { [] }

    /// Appends a message to `topic` and deletes all but its latest `retaining` (at least the last one), in
    /// one statement: one round trip, committed (with `synchronous_commit` on) when this returns.
    public func append(topic: String, action: Data, retaining: Int) throws -> UInt64 {
        let rows = try access(topicSlot) { connection throws(PostgresError) in
            try connection.execute(
                Self.appendStatement, [.text(topic), .data(action), .int64(Int64(max(retaining, 1)))])
        }
        do throws(PostgresError) {
            return try rows.version(0, 0)
        } catch {
            throw Self.storageError(error)
        }
    }

    /// The retained messages of `topic` after `sequence`, oldest first, and its last sequence, read in one
    /// statement (one snapshot).
    public func messages(of topic: String, after sequence: UInt64) throws -> (
        last: UInt64, entries: [TopicLogEntry]
    ) {
        let rows = try access(topicSlot) { connection throws(PostgresError) in
            try connection.execute(
                """
                SELECT c.last, m.sequence, m.action FROM topic_counters c
                LEFT JOIN topic_messages m ON m.topic = c.topic AND m.sequence > $2::bigint
                WHERE c.topic = $1::text ORDER BY m.sequence
                """, [.text(topic), .version(sequence)])
        }
        do throws(PostgresError) {
            guard rows.count > 0 else { return (0, []) }
            var entries: [TopicLogEntry] = []
            for row in 0..<rows.count where rows.optionalBytes(row, 1) != nil {
                entries.append(
                    TopicLogEntry(
                        topic: topic, sequence: try rows.version(row, 1), action: Data(try rows.bytes(row, 2))))
            }
            return (try rows.version(0, 0), entries)
        } catch {
            throw Self.storageError(error)
        }
    }

    /// Keeps the topics with subscribers on this node alive, then deletes every topic no node published to or
    /// kept alive for `retention`: its counter and messages, in one statement. A message appended meanwhile
    /// waits on the counter row and finds it fresh (kept) or gone (the topic starts over at 1, and the delete,
    /// reading an earlier snapshot, leaves it).
    public func forget(_ sweep: TopicSweep, retention: Duration) throws {
        let milliseconds =
            Int64(retention.components.seconds) * 1000
            + Int64(retention.components.attoseconds / 1_000_000_000_000_000)
        let followed = sweep.followed.joined(separator: "\n")
        // One statement: the followed topics are touched and never deleted. Names hold no line break (``TopicName``).
        _ = try access(topicSlot) { connection throws(PostgresError) in
            try connection.execute(
                """
                WITH kept AS (
                    UPDATE topic_counters SET touched = now()
                    WHERE topic = ANY(string_to_array($1::text, E'\\n')) RETURNING topic
                ), gone AS (
                    DELETE FROM topic_counters WHERE touched < now() - $2::bigint * interval '1 millisecond'
                        AND NOT (topic = ANY(string_to_array($1::text, E'\\n')))
                    RETURNING topic, last
                )
                DELETE FROM topic_messages m USING gone WHERE m.topic = gone.topic AND m.sequence <= gone.last
                """, [.text(followed), .int64(milliseconds)])
        }
    }

    /// Listens for appends (this node's too) on a connection and thread of its own; `wake` gets each notice's
    /// topic and sequence, and nil each time the listener (re)connects, since notices sent meanwhile are
    /// lost. Once.
    public func watchTopics(_ wake: @escaping @Sendable (_ topic: String?, _ sequence: UInt64?) -> Void) {
        let url = self.url
        let node = self.node
        let logger = self.logger
        topicListener.withLock { listener in
            guard listener == nil else { return }
            let started = NotificationListener(
                url: url, node: node, channel: Self.topicChannel, role: "topics", logger: logger,
                connected: { wake(nil, nil) }
            ) { payload in
                guard let space = payload.firstIndex(of: " ") else { return }
                wake(String(payload[payload.index(after: space)...]), UInt64(payload[..<space]))
            }
            started.start()
            listener = started
        }
    }
}
