import Synchronization

extension Store {
    /// Dispatches one action and returns what happened to it.
    @discardableResult
    public func dispatch(_ action: some StoreAction) throws(StoreError) -> DispatchOutcome {
        try dispatch([action])
    }

    /// Dispatches actions as one batch: reduced in order and committed as one version.
    ///
    /// - Parameters:
    ///   - actions: The actions, in order. A blocked action is skipped; the others still apply.
    ///   - views: Views to return as of the committed version.
    ///   - expectedVersion: If set, nothing is applied unless the store is at this version.
    ///   - metadata: Handed to the commit listeners with the commit (``CommitRecord/metadata``).
    /// - Throws: ``StoreError`` when the store is closed or not at `expectedVersion`.
    @discardableResult
    @_spi(ReMVVMServer) public func dispatch(
        _ actions: [any StoreAction],
        views: ViewSet = .none,
        expectedVersion: UInt64? = nil,
        metadata: CommitMetadata = CommitMetadata()
    ) throws(StoreError) -> DispatchOutcome {
        let commit = try core.withLock { (core: inout StoreCore<State>) throws(StoreError) -> Commit in
            try reduce(actions, into: &core, views: views, expectedVersion: expectedVersion, metadata: metadata)
        }
        carryOut(commit)
        return commit.outcome
    }

    /// The result of one locked dispatch, carried out once the lock is released.
    struct Commit: Sendable {
        let outcome: DispatchOutcome
        let woken: [(ChangeWaiters.Handler, ViewSet)]
        let effects: [EffectRequest]
        /// What middleware published, in order.
        var publications: [Publication] = []
        /// Whether the input of the topic subscriptions changed, so that they are derived again.
        var resubscribe = false
    }

    /// Does what a commit left for after the lock: wakes its waiters, follows the state's topics, starts its
    /// effects and publishes what its middleware published.
    ///
    /// Joining a topic of a log that several nodes share reads the log, so with such a hub the subscriptions
    /// change on the configuration's scheduler (the server's threads), not on the dispatching thread (an HTTP
    /// worker): the topic's history then reaches the store moments after the dispatch is answered.
    func carryOut(_ commit: Commit) {
        wake(commit.woken, at: commit.outcome.version)
        if commit.resubscribe {
            if topics?.readsSharedLog != true
                || !configuration.scheduler.offer({ [weak self] in self?.syncTopics() })
            {
                syncTopics()
            }
        }
        if !commit.effects.isEmpty {
            effects.perform(commit.effects, context: effectContext())
        }
        if !commit.publications.isEmpty { publish(commit.publications) }
    }

    private func reduce(
        _ actions: [any StoreAction],
        into core: inout StoreCore<State>,
        views: ViewSet,
        expectedVersion: UInt64?,
        metadata: CommitMetadata
    ) throws(StoreError) -> Commit {
        guard !core.isClosed else { throw .closed(at: core.version) }
        if let expectedVersion, expectedVersion != core.version {
            throw .versionMismatch(current: core.version)
        }
        let old = core.state
        var results: [ActionResult] = []
        if actions.count > 1 { results.reserveCapacity(actions.count) }
        var requests: [EffectRequest] = []
        var publications: [Publication] = []
        var applied = false
        var reduced: [any StoreAction] = []
        let recording = !core.commitListeners.isEmpty
        for action in actions {
            var passed: any StoreAction = action
            if !middleware.isEmpty {
                var context = MiddlewareContext(state: core.state, services: services, identity: identity)
                let result = runMiddleware(action, context: &context)
                requests.append(contentsOf: context.requests)
                if !context.publications.isEmpty { publications.append(contentsOf: context.publications) }
                guard case .next(let next) = result else {
                    if case .block(let reason) = result { results.append(.blocked(reason: reason)) }
                    continue
                }
                passed = next
            }
            _ = reducer.reduce(&core.state, with: passed)
            if recording { reduced.append(passed) }
            if actions.count == 1 {
                results = ActionResult.appliedAlone  // Shared storage: no array allocated per dispatch.
            } else {
                results.append(.applied)
            }
            applied = true
        }
        var woken: [(ChangeWaiters.Handler, ViewSet)] = []
        var otherChanged: [ViewSnapshot] = []
        var resubscribe = false
        let publishes = applied && !publications.isEmpty
        if applied {
            core.version += 1
            if recording {
                let record = CommitRecord(
                    version: core.version, actions: reduced, publications: outboxed(&publications), metadata: metadata)
                for listener in core.commitListeners { listener(record) }
            }
            let changes = publish(from: old, core: &core)
            woken = changes.woken
            let unrequested = changes.changed.subtracting(views)
            if !unrequested.isEmpty { otherChanged = unrequested.map { core.views[$0].current } }
            if let subscriptions, core.topics.active { resubscribe = subscriptions.inputChanged(old, core.state) }
        }
        let snapshots = views.isEmpty ? [] : views.map { core.views[$0].current }
        return Commit(
            outcome: DispatchOutcome(
                version: core.version, results: results, views: snapshots, otherChanged: otherChanged,
                published: publishes),
            woken: woken,
            effects: requests,
            publications: publications,
            resubscribe: resubscribe
        )
    }

    /// What every commit does once the reducers ran and the version moved on, inside the lock:
    /// recompute the changed views, tell observers, and take the waiters watching those views.
    func publish(
        from old: State, core: inout StoreCore<State>
    ) -> (woken: [(ChangeWaiters.Handler, ViewSet)], changed: ViewSet) {
        let changed = updateViews(from: old, core: &core)
        for observer in core.observers { observer.notify(old, core.state, core.version) }
        return (changed.isEmpty ? [] : core.waiters.take(changed: changed), changed)
    }

    /// Wakes the waiters a commit took, once the lock is released.
    ///
    /// A change that wakes more than ``inlineWakeLimit`` waiters is offered to the configuration's
    /// ``StoreConfiguration/scheduler``: the dispatcher then answers at once, and its thread (a server worker,
    /// which also owns part of the waiters' connections) goes back to sending answers instead of running
    /// thousands of handlers first. When the scheduler declines, this thread runs them. Each waiter still runs
    /// exactly once, and reads the history at that time.
    func wake(_ woken: [(ChangeWaiters.Handler, ViewSet)], at version: UInt64) {
        if woken.count > Self.inlineWakeLimit, configuration.scheduler.offer({ Self.run(woken, at: version) }) {
            return
        }
        Self.run(woken, at: version)
    }

    /// The largest fan-out always woken on the dispatcher's own thread: beyond it, handing the job to the
    /// scheduler costs less than the handlers themselves.
    static var inlineWakeLimit: Int { 64 }

    private static func run(_ woken: [(ChangeWaiters.Handler, ViewSet)], at version: UInt64) {
        for (waiter, changed) in woken { waiter(.changed(version: version, views: changed)) }
    }

    func runMiddleware(_ action: any StoreAction, context: inout MiddlewareContext<State>) -> MiddlewareResult {
        var current = action
        for middleware in middleware {
            switch middleware.handle(current, context: &context) {
            case .next(let next): current = next
            case .block(let reason): return .block(reason: reason)
            }
        }
        return .next(current)
    }

    /// Recomputes the views whose inputs changed; returns those whose view model really changed.
    func updateViews(from old: State, core: inout StoreCore<State>) -> ViewSet {
        var changed = ViewSet.none
        let entries = projections.entries
        for index in entries.indices {
            // Read in place, not copied out: a copy of the projection would retain each of its closures.
            guard entries[index].inputChanged(old, core.state),
                let model = entries[index].update(core.state, core.views[index].current.viewModel)
            else { continue }
            let snapshot = ViewSnapshot(name: entries[index].name, version: core.version, viewModel: model)
            core.views[index].append(snapshot, limit: configuration.historyLimit)
            changed.insert(index)
        }
        return changed
    }

    /// The context effects get: the services and a weak way back into this store.
    func effectContext() -> EffectContext {
        EffectContext(
            services: services,
            dispatcher: { [weak self] actions in
                guard let self, self.effects.admitFollowUp() else { return nil }
                return try? self.dispatch(actions)
            },
            topics: topics,
            identity: identity
        )
    }
}
