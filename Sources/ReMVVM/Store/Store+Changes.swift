import Synchronization

extension Store {
    /// Waits for a change of one of `views` after `version`, without a task per waiter.
    ///
    /// If a watched view already changed after `version`, or the store is closed, the answer
    /// is ``WaitRegistration/ready(_:)`` and the handler is never called. Otherwise the waiter
    /// is parked and `handler` runs exactly once, unless ``cancelWait(_:)`` removes it first: on
    /// the thread of the dispatch that changes a watched view (or of ``close()``), before that
    /// dispatcher gets its answer; or, when that change wakes more than 64 waiters at once, on a thread
    /// of the store's ``StoreConfiguration/scheduler`` right after. Keep the handler short.
    @_spi(ReMVVMServer) public func waitForChange(
        after version: UInt64,
        views: ViewSet,
        handler: @escaping @Sendable (StoreChange) -> Void
    ) -> WaitRegistration {
        core.withLock { core in
            if core.isClosed { return .ready(.closed(version: core.version)) }
            let changed = changedViews(in: core, after: version, among: views)
            if !changed.isEmpty { return .ready(.changed(version: core.version, views: changed)) }
            return .parked(core.waiters.add(views: views, handler: handler))
        }
    }

    /// Removes a parked waiter; false if it was already woken (its handler ran or is running).
    @discardableResult
    @_spi(ReMVVMServer) public func cancelWait(_ token: WaiterToken) -> Bool {
        core.withLock { $0.waiters.remove(token) }
    }

    /// Suspends until one of `views` changes after `version` or the store closes.
    @_spi(ReMVVMServer) public func nextChange(after version: UInt64, views: ViewSet) async throws(CancellationError)
        -> StoreChange
    {
        let waiter = AsyncWaiter()
        let change = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<StoreChange?, Never>) in
                waiter.install(continuation)
                switch waitForChange(after: version, views: views, handler: { waiter.resume($0) }) {
                case .ready(let change): waiter.resume(change)
                case .parked(let token): waiter.park(token) { [weak self] in self?.cancelWait($0) ?? true }
                }
            }
        } onCancel: {
            waiter.cancel()
        }
        guard let change else { throw CancellationError() }
        return change
    }

    /// The views among `views` whose current value is newer than `version`.
    @_spi(ReMVVMServer) public func changedViews(after version: UInt64, among views: ViewSet) -> ViewSet {
        core.withLock { changedViews(in: $0, after: version, among: views) }
    }

    private func changedViews(in core: StoreCore<State>, after version: UInt64, among views: ViewSet) -> ViewSet {
        var changed = ViewSet.none
        for index in views where index < core.views.count && core.views[index].current.version > version {
            changed.insert(index)
        }
        return changed
    }
}
