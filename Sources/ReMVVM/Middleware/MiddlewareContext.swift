/// What a middleware can see and do while it handles one action.
public struct MiddlewareContext<State: Sendable> {
    /// The state before the action is reduced.
    public let state: State
    /// The services effects use (network, clock, storage), replaceable in tests.
    public let services: Services
    /// The effects requested so far; the store starts them once the dispatch is committed.
    private(set) var requests: [EffectRequest] = []

    init(state: State, services: Services) {
        self.state = state
        self.services = services
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
