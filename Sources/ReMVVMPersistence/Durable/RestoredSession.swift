@_spi(ReMVVMServer) import ReMVVM

/// A session rebuilt from storage, ready to be served again.
package struct RestoredSession: Sendable {
    /// Its identity: the same id, token hash and epoch as before the restart.
    package let record: SessionRecord
    /// Its store, at the restored version, logging new commits.
    package let store: any ProjectedStore
    /// Runs the app's restore hook; call it once the session is back in service.
    package let resume: @Sendable () -> Void
    /// The idempotency keys of its latest dispatches, oldest first, with their answers.
    package let keys: [StoredIdempotencyKey]
    /// The version its store was rebuilt to: a client's cursor older than it came from another node or from
    /// before a restart, so when the replayed history no longer reaches it, the client gets every view whole
    /// rather than a reset.
    package let base: UInt64
    /// Its highest stored version, which the writer advances as it stores more.
    package let durable: DurableVersion

    /// A restored session.
    package init(
        record: SessionRecord, store: any ProjectedStore, keys: [StoredIdempotencyKey] = [], base: UInt64 = 0,
        durable: DurableVersion = DurableVersion(), resume: @escaping @Sendable () -> Void
    ) {
        self.durable = durable
        self.record = record
        self.store = store
        self.keys = keys
        self.base = base
        self.resume = resume
    }
}
