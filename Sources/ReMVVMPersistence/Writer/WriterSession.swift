/// What the writer knows of one tracked session: how to snapshot it and how long its log is.
struct WriterSession: Sendable {
    /// The session's identity (with its latest expiry), written again when a failed write must be repaired.
    var record: SessionRecord
    /// Reads the session's current state as a snapshot.
    let snapshot: @Sendable () throws -> StoredSnapshot
    /// The version of the latest snapshot written; commits up to it need no log entry.
    var snapshotVersion: UInt64
    /// Commits logged since that snapshot.
    var sinceSnapshot: Int
    /// Where the writer publishes the session's highest stored version.
    let durable: DurableVersion
}
