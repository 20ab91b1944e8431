/// What a running effect can use: the injected services and a way back into the store.
public struct EffectContext: Sendable {
    /// The services the store was created with.
    public let services: Services
    let dispatcher: @Sendable ([any StoreAction]) -> DispatchOutcome?

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
