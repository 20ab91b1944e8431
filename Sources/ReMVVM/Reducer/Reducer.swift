/// A pure function that reduces exactly one action type: `(State, Action) -> State`.
///
/// This is ReMVVM's reducer shape. Reducers never see other action types and never run
/// side effects; compose them with ``AnyReducer``.
public protocol Reducer: SendableMetatype {
    /// The state (or substate) this reducer produces.
    associatedtype State
    /// The one action type this reducer handles.
    associatedtype Action: StoreAction

    /// Returns the state that follows `state` once `action` happened.
    static func reduce(state: State, with action: Action) -> State
}
