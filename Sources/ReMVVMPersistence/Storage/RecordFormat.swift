/// The version of the records this server writes: sessions, snapshots and log entries.
///
/// Every stored record carries it, so that a future server can read old records and an old
/// server refuses newer ones with a clear error instead of misreading them.
public enum RecordFormat {
    /// The format written now.
    public static let current = 1
    /// A snapshot of a session that follows topics: `{"state": <state>, "topics": {topic: position}}`.
    /// Only such snapshots are written in it, so a session without topics stays readable by older servers.
    public static let snapshotWithTopics = 2
}
