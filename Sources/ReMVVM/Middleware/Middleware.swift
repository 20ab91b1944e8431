/// Sees every action before the reducers and decides what happens to it.
///
/// A middleware passes the action on (possibly transformed), blocks it with a reason the client
/// is told, or starts side effects through ``MiddlewareContext/run(id:_:)`` that dispatch
/// follow-up actions when they finish. It runs synchronously inside the store's serial
/// section, so it must be quick: anything slow belongs in an effect.
public protocol Middleware<State>: Sendable {
    /// The state the store holds.
    associatedtype State: Sendable

    /// Decides what happens to `action`, given the state before it is reduced.
    func handle(_ action: any StoreAction, context: inout MiddlewareContext<State>) -> MiddlewareResult

    /// Adds the action types this middleware reacts to, so they can be decoded from the wire.
    func registerActions(in registry: inout ActionRegistry)
}

extension Middleware {
    /// Registers nothing: untyped middleware reacts to actions other parts registered.
    public func registerActions(in registry: inout ActionRegistry) {}
}
