/// A middleware that reacts to one action type and passes every other action on untouched.
///
/// The counterpart of ReMVVM's typed middleware, such as a `ShowProfilePageMiddleware` that
/// turns one high-level action into the navigation it stands for.
public protocol ActionMiddleware: Middleware {
    /// The action type this middleware reacts to.
    associatedtype Action: StoreAction

    /// Decides what happens to `action`, given the state before it is reduced.
    func handle(_ action: Action, context: inout MiddlewareContext<State>) -> MiddlewareResult
}

extension ActionMiddleware {
    /// Forwards actions of type ``Action`` to the typed handler and passes the rest on.
    public func handle(_ action: any StoreAction, context: inout MiddlewareContext<State>) -> MiddlewareResult {
        guard let typed = action.exactly(Action.self) else { return .next(action) }
        return handle(typed, context: &context)
    }

    /// Registers ``Action`` so that a store decodes it even when no reducer handles it (clients may send it only
    /// when the definition lists it in ``StoreDefinition/clientActions``).
    public func registerActions(in registry: inout ActionRegistry) {
        registry.register(Action.self)
    }
}
