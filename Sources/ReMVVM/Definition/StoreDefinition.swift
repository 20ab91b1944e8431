/// Everything needed to create the store of a new session: the app, as the server sees it.
///
/// ```swift
/// let app = StoreDefinition(
///     initialState: AppState(),
///     reducer: AnyReducer(counterReducer.lifted(\.counter), userReducer.lifted(\.user)),
///     middleware: [LoginMiddleware()],
///     projections: views,
///     clientActions: [CounterAction.Increase.self, UserAction.Login.self],
///     subscriptions: TopicSubscriptions(from: \.chat.room) { room in room.map { ["chat/\($0)"] } ?? [] }
/// )
/// ```
public struct StoreDefinition<State: Sendable>: Sendable {
    /// The state a new session starts with.
    public var initialState: State {
        didSet { initialViews = InitialViews() }
    }
    /// The composed reducers.
    public var reducer: AnyReducer<State>
    /// Middleware, run in order before the reducers.
    public var middleware: [any Middleware<State>]
    /// The named view-model factories.
    public var projections: Projections<State> {
        didSet { initialViews = InitialViews() }
    }
    /// The services effects use.
    public var services: Services
    /// Limits and hooks for every store.
    public var configuration: StoreConfiguration
    /// The action types a client may send over HTTP; none unless listed.
    ///
    /// The server decodes nothing else from a client: any other type (an effect's result, a topic's
    /// message, anything the app dispatches itself) is refused with 403 before its payload is read, so a
    /// client cannot forge what only the server should say. Dispatches from inside the server (middleware,
    /// effects, topics, ``Store/dispatch(_:)``) are not limited. A type listed here need not be handled by a
    /// reducer or typed middleware: listing it makes it decodable too.
    public var clientActions: ActionRegistry
    /// Action types the store decodes beyond those reducers and typed middleware handle (for untyped
    /// middleware); clients may send them only when they are in ``clientActions`` too.
    public var extraActions: ActionRegistry
    /// Called once for each session restored from durable storage, when it is back in service.
    ///
    /// A restore replays the reducers only: middleware and effects never run again, so an
    /// effect that was in flight when the server stopped is lost. Here the app sees the
    /// restored state (`store.state`) and decides, for example by dispatching again the action
    /// that started a load still marked as loading. The default does nothing.
    public var onRestore: @Sendable (Store<State>) -> Void
    /// Which topics a state subscribes to; nil (the default) for an app whose sessions hear no topics.
    public var subscriptions: TopicSubscriptions<State>?
    /// The hub every store of this definition publishes to and receives from. Nil by default: a `StoreServer`
    /// gives the stores it makes its own hub (``StoreServer/topics``, where the app publishes from outside a
    /// session), and a `TestStore` a hub of its own. Set one to share a hub you made between definitions, or
    /// for stores made in-process with ``makeStore(state:version:identity:)``.
    public var topics: TopicHub?
    /// The views of ``initialState``, shared by every fresh store; replaced when the state or the
    /// projections change.
    private var initialViews = InitialViews()

    /// Describes an app; `clientActions` lists the action types clients may send over HTTP (none by default).
    public init(
        initialState: State,
        reducer: AnyReducer<State>,
        middleware: [any Middleware<State>] = [],
        projections: Projections<State>,
        clientActions: [any StoreAction.Type] = [],
        services: Services = Services(),
        configuration: StoreConfiguration = StoreConfiguration(),
        extraActions: ActionRegistry = ActionRegistry(),
        onRestore: @escaping @Sendable (Store<State>) -> Void = { _ in },
        subscriptions: TopicSubscriptions<State>? = nil,
        topics: TopicHub? = nil
    ) {
        self.subscriptions = subscriptions
        self.topics = topics
        self.initialState = initialState
        self.reducer = reducer
        self.middleware = middleware
        self.projections = projections
        self.services = services
        self.configuration = configuration
        self.extraActions = extraActions
        var sendable = ActionRegistry()
        for type in clientActions { sendable.register(type) }
        self.clientActions = sendable
        self.onRestore = onRestore
    }

    /// Every action type a store of this definition decodes (from its durable log, its topics and its
    /// clients): those of the reducers, the typed middleware, ``extraActions`` and ``clientActions``, the
    /// last marked as the only ones clients may send.
    public var actions: ActionRegistry {
        var registry = reducer.actions
        for middleware in middleware { middleware.registerActions(in: &registry) }
        registry.merge(extraActions)
        registry.merge(clientActions, sendableByClients: true)
        return registry
    }

    /// Creates a store for a new session, or for a restored one at `state` and `version`.
    ///
    /// A new session's store (no `state`, version 0) shares its initial views with every other
    /// new session's, since they are computed from the same state, and follows its topics at once; a
    /// store made at a given `state` follows them once ``Store/startTopics()`` is called. `identity` is whom the
    /// session belongs to, shown to middleware and effects.
    public func makeStore(state: State? = nil, version: UInt64 = 0, identity: Identity? = nil) -> Store<State> {
        let views =
            state == nil && version == 0
            ? initialViews.snapshots { Store.snapshots(of: initialState, at: 0, projections: projections) }
            : Store.snapshots(of: state ?? initialState, at: version, projections: projections)
        let store = Store(
            state: state ?? initialState,
            reducer: reducer,
            middleware: middleware,
            projections: projections,
            services: services,
            configuration: configuration,
            version: version,
            views: views,
            subscriptions: subscriptions,
            topics: topics,
            identity: identity
        )
        if state == nil, subscriptions != nil { store.startTopics() }
        return store
    }
}
