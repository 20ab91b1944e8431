import Synchronization

extension Store {
    /// The current state and its version, read together.
    ///
    /// What a durable snapshot records: the two are read under one lock, so the state is
    /// exactly the one that `version` names.
    @_spi(ReMVVMServer) public var versionedState: (state: State, version: UInt64) {
        core.withLock { core in (core.state, core.version) }
    }

    /// Re-applies a logged commit through the reducers alone: how a durable action log
    /// rebuilds a session after a restart.
    ///
    /// No middleware runs and no effect starts, since both already happened when the commit was
    /// first made; commit listeners are not called either, since the record is already logged.
    /// Views, observers and change waiters are updated as for a dispatch, so the view history
    /// covers the replayed versions.
    ///
    /// - Parameter record: The commit to apply; its version must be the store's version plus one.
    /// - Throws: ``StoreError`` when the store is closed or the record is not the next version.
    @_spi(ReMVVMServer) public func replay(_ record: CommitRecord) throws(StoreError) {
        let woken = try core.withLock {
            (core: inout StoreCore<State>) throws(StoreError) -> [(ChangeWaiters.Handler, ViewSet)] in
            guard !core.isClosed else { throw .closed(at: core.version) }
            guard record.version == core.version + 1 else { throw .versionMismatch(current: core.version) }
            let old = core.state
            for action in record.actions {
                if let receipt = action as? TopicReceipt {
                    core.topics.positions[receipt.topic] = receipt.sequence
                } else {
                    _ = reducer.reduce(&core.state, with: action)
                }
            }
            core.version = record.version
            return publish(from: old, core: &core).woken
        }
        wake(woken, at: record.version)
    }
}
