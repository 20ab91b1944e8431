/// A session as loaded from storage: enough to rebuild its store.
public struct StoredSession: Sendable, Equatable {
    /// Its identity.
    public var record: SessionRecord
    /// Its latest snapshot; nil when none was taken (the log starts at version 1).
    public var snapshot: StoredSnapshot?
    /// The commits after the snapshot, in version order.
    public var log: [StoredCommit]
    /// Its stored idempotency keys, oldest first.
    public var keys: [StoredIdempotencyKey]

    /// A loaded session.
    public init(
        record: SessionRecord, snapshot: StoredSnapshot?, log: [StoredCommit], keys: [StoredIdempotencyKey] = []
    ) {
        self.record = record
        self.snapshot = snapshot
        self.log = log
        self.keys = keys
    }
}
