/// What a running effect can use: the injected services and a way back into the store.
public struct EffectContext: Sendable {
    /// The services the store was created with.
    public let services: Services
    let dispatcher: @Sendable ([any StoreAction]) -> DispatchOutcome?
    /// The hub the store's topics go through.
    let topics: TopicHub?
    /// Whom the session belongs to, as ``MiddlewareContext/identity``; nil for a session created without an
    /// authenticator.
    public let identity: Identity?

    init(
        services: Services, dispatcher: @escaping @Sendable ([any StoreAction]) -> DispatchOutcome?, topics: TopicHub?,
        identity: Identity? = nil
    ) {
        self.services = services
        self.dispatcher = dispatcher
        self.topics = topics
        self.identity = identity
    }

    /// Publishes `action` to `topic` now; see ``TopicHub/publish(_:to:)-(_,String)``.
    ///
    /// - Returns: The message's position in the topic.
    /// - Throws: ``TopicError`` for an invalid name, too large an action, or a store made without a hub.
    @discardableResult
    public func publish(_ action: some StoreAction, to topic: String) throws(TopicError) -> UInt64 {
        guard let topics else { throw TopicError(.unavailable, "this store was made without a topic hub") }
        return try topics.publish(action, to: topic)
    }

    /// Dispatches a follow-up action through the whole pipeline (middleware, then reducers).
    ///
    /// Returns nil when the store has closed in the meantime.
    @discardableResult
    public func dispatch(_ action: some StoreAction) -> DispatchOutcome? {
        dispatcher([action])
    }

    /// Dispatches follow-up actions as one batch, committed as one version.
    @discardableResult
    public func dispatch(batch actions: [any StoreAction]) -> DispatchOutcome? {
        dispatcher(actions)
    }
}
