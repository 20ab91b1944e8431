/// A stored session as the upgrade gate reads it: its latest snapshot, the one before it and every log entry
/// since that one, so that a new build can replay from the older snapshot and check the later one's digest.
public struct StoredHistory: Sendable, Equatable {
    /// Its identity.
    public var record: SessionRecord
    /// The snapshot before ``latest``; nil when there was none (the log then starts at version 1, or, in a
    /// database written before the digests were kept, after ``latest``).
    public var previous: StoredSnapshot?
    /// Its latest snapshot, which a restore starts from; nil when none was taken.
    public var latest: StoredSnapshot?
    /// Every log entry kept, in version order: those after ``previous`` (or all).
    public var log: [StoredCommit]

    /// A stored session's history.
    public init(record: SessionRecord, previous: StoredSnapshot?, latest: StoredSnapshot?, log: [StoredCommit]) {
        self.record = record
        self.previous = previous
        self.latest = latest
        self.log = log
    }
}

/// Where the upgrade gate reads stored sessions from, without changing anything: an SQLite file or a
/// PostgreSQL database opened for reading only.
public protocol SessionHistorySource: Sendable {
    /// The ids of every stored session, oldest first.
    func sessionIDs() throws(StorageError) -> [String]

    /// One session's history; nil when it is no longer stored.
    func history(_ id: String) throws(StorageError) -> StoredHistory?

    /// Releases the connection.
    func close()
}
