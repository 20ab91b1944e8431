/// A session as loaded from storage: enough to rebuild its store.
public struct StoredSession: Sendable, Equatable {
    /// Its identity.
    public var record: SessionRecord
    /// Its latest snapshot; nil when none was taken (the log starts at version 1).
    public var snapshot: StoredSnapshot?
    /// The commits after the snapshot, in version order.
    public var log: [StoredCommit]

    /// A loaded session.
    public init(record: SessionRecord, snapshot: StoredSnapshot?, log: [StoredCommit]) {
        self.record = record
        self.snapshot = snapshot
        self.log = log
    }
}
