import ReMVVM

/// A session rebuilt from storage, ready to be served again.
public struct RestoredSession: Sendable {
    /// Its identity: the same id, token hash and epoch as before the restart.
    public let record: SessionRecord
    /// Its store, at the restored version, logging new commits.
    public let store: any ProjectedStore
    /// Runs the app's restore hook; call it once the session is back in service.
    public let resume: @Sendable () -> Void
    /// The idempotency keys of its latest dispatches, oldest first, with their answers.
    public let keys: [StoredIdempotencyKey]

    /// A restored session.
    public init(
        record: SessionRecord, store: any ProjectedStore, keys: [StoredIdempotencyKey] = [],
        resume: @escaping @Sendable () -> Void
    ) {
        self.record = record
        self.store = store
        self.keys = keys
        self.resume = resume
    }
}
