import Synchronization

/// Holds one session's immutable state and is the only place it changes.
///
/// Dispatch is serial: actions are applied strictly one at a time in arrival order under a
/// lock held for the reducers' nanoseconds, so concurrent dispatchers never lose an update and
/// every committed change gets the next version. Middleware runs first and may block or
/// transform an action or start effects; after the reducers, the store works out which views
/// changed, computes each changed one once, tells observers, and wakes the waiters watching it.
public final class Store<State: Sendable>: Sendable {
    let reducer: AnyReducer<State>
    let middleware: [any Middleware<State>]
    let projections: Projections<State>
    /// The services effects use.
    public let services: Services
    let configuration: StoreConfiguration
    let core: Mutex<StoreCore<State>>
    let effects: EffectRunner
    /// The hub this store publishes to and receives from; nil for a store made without one.
    let topics: TopicHub?
    /// Which topics the state subscribes to; nil when the app declares none.
    let subscriptions: TopicSubscriptions<State>?
    /// Where the topics' messages wait for this store; only for a store with subscriptions.
    let inbox: TopicInbox?
    /// Whom the session belongs to (``Identity``); nil for a session created without an authenticator.
    public let identity: Identity?

    /// Creates a store holding `state` at `version`.
    ///
    /// - Parameters:
    ///   - state: The initial (or restored) state.
    ///   - reducer: The composed reducers.
    ///   - middleware: Run in order before the reducers for every action.
    ///   - projections: The app's named view-model factories.
    ///   - services: What effects use; replace services here in tests.
    ///   - configuration: Limits and the effect error hook.
    ///   - version: The version of `state`; 0 for a new session.
    ///   - subscriptions: Which topics the state subscribes to (``startTopics()`` starts them).
    ///   - topics: The hub shared with the stores this one talks to.
    package convenience init(
        state: State,
        reducer: AnyReducer<State>,
        middleware: [any Middleware<State>] = [],
        projections: Projections<State> = Projections(),
        services: Services = Services(),
        configuration: StoreConfiguration = StoreConfiguration(),
        version: UInt64 = 0,
        subscriptions: TopicSubscriptions<State>? = nil,
        topics: TopicHub? = nil
    ) {
        self.init(
            state: state,
            reducer: reducer,
            middleware: middleware,
            projections: projections,
            services: services,
            configuration: configuration,
            version: version,
            views: Self.snapshots(of: state, at: version, projections: projections),
            subscriptions: subscriptions,
            topics: topics
        )
    }

    /// Creates a store whose views at `version` are already made: `views` holds one snapshot per
    /// projection, in index order, computed from `state` (shared by fresh stores of one definition).
    init(
        state: State,
        reducer: AnyReducer<State>,
        middleware: [any Middleware<State>],
        projections: Projections<State>,
        services: Services,
        configuration: StoreConfiguration,
        version: UInt64,
        views: [ViewSnapshot],
        subscriptions: TopicSubscriptions<State>?,
        topics: TopicHub?,
        identity: Identity? = nil
    ) {
        self.identity = identity
        self.reducer = reducer
        self.middleware = middleware
        self.projections = projections
        self.services = services
        self.configuration = configuration
        core = Mutex(StoreCore(state: state, version: version, views: views.map(ViewHistory.init(initial:))))
        effects = EffectRunner(configuration: configuration, clock: services.clock)
        self.topics = topics
        self.subscriptions = subscriptions
        inbox = subscriptions == nil ? nil : topics?.makeInbox()
        inbox?.connect { [weak self] messages in self?.deliver(messages) }
    }

    /// One snapshot per projection of `state` at `version`, in index order.
    static func snapshots(of state: State, at version: UInt64, projections: Projections<State>) -> [ViewSnapshot] {
        projections.entries.map { projection in
            ViewSnapshot(name: projection.name, version: version, viewModel: projection.make(state))
        }
    }

    /// The current state.
    public var state: State { core.withLock { $0.state } }

    /// The version of the current state: the number of commits since the session began.
    public var version: UInt64 { core.withLock { $0.version } }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { core.withLock { $0.isClosed } }

    /// How many change waiters are parked.
    @_spi(ReMVVMServer) public var parkedWaiters: Int { core.withLock { $0.waiters.count } }

    /// How many effects are running.
    @_spi(ReMVVMServer) public var runningEffects: Int { effects.runningCount }

    /// Calls `listener` each time an effect ends, after it has left ``runningEffects``: the test store waits on it
    /// instead of polling.
    package func onEffectFinished(_ listener: @escaping @Sendable () -> Void) {
        effects.onFinish(listener)
    }

    /// Ends the store: cancels its effects, wakes every waiter with ``StoreChange/closed(version:)``
    /// and refuses further dispatches. Idempotent.
    public func close() {
        let (waiters, version) = core.withLock { core -> ([ChangeWaiters.Handler], UInt64) in
            guard !core.isClosed else { return ([], core.version) }
            core.isClosed = true
            core.observers.removeAll()
            return (core.waiters.takeAll(), core.version)
        }
        effects.cancelAll()
        leaveTopics()
        for waiter in waiters { waiter(.closed(version: version)) }
    }

    deinit {
        effects.cancelAll()
    }
}
