/// What a middleware can see and do while it handles one action.
public struct MiddlewareContext<State: Sendable> {
    /// The state before the action is reduced.
    public let state: State
    /// The services effects use (network, clock, storage), replaceable in tests.
    public let services: Services
    /// The effects requested so far; the store starts them once the dispatch is committed.
    private(set) var requests: [EffectRequest] = []
    /// The publishes requested so far; the store carries them out once the dispatch is committed.
    private(set) var publications: [Publication] = []
    /// The topic the action was delivered from, or nil for an action dispatched into this session
    /// (by a client, an effect or the app): lets middleware tell a message from a peer from a request.
    public internal(set) var topic: String?
    /// Whom the session belongs to (``Identity``), as the app's authenticator said when the session was created;
    /// nil for a session created without one. The same for every action of the session, whoever sent it.
    public let identity: Identity?

    init(state: State, services: Services, identity: Identity? = nil, topic: String? = nil) {
        self.state = state
        self.services = services
        self.identity = identity
        self.topic = topic
    }

    /// Publishes `action` to `topic` once the current dispatch has been committed: every session whose
    /// state subscribes to the topic receives it as an action, this one included if it subscribes.
    ///
    /// The name is checked now; the size and the topic log when the publish is carried out, and a failure
    /// then is reported through ``StoreConfiguration/onTopicError``.
    ///
    /// - Throws: ``TopicError`` when `topic` is not a valid topic name (``TopicName``).
    public mutating func publish(_ action: some StoreAction, to topic: String) throws(TopicError) {
        try TopicName.validate(topic)
        publications.append(Publication(action: action, topic: topic))
    }

    /// Starts an asynchronous side effect once the current dispatch has been committed.
    ///
    /// The effect runs as a task owned by the store: it is cancelled when the session ends,
    /// and an error it throws is reported, never fatal. Starting an effect with the `id` of
    /// one still running cancels the older one first (a newer quote request wins).
    public mutating func run(
        id: String? = nil,
        _ operation: @escaping @Sendable (EffectContext) async throws -> Void
    ) {
        requests.append(.start(Effect(id: id, operation: operation)))
    }

    /// Cancels the running effect started with `id`, if any.
    public mutating func cancelEffect(id: String) {
        requests.append(.cancel(id: id))
    }
}

/// A publish requested by middleware, carried out after the dispatch commits.
struct Publication: Sendable {
    let action: any StoreAction
    let topic: String
}
