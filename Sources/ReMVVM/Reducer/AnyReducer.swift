/// A composition of single-action reducers for one state type: ReMVVM's `AnyReducer`.
///
/// Reducers are looked up by the action's type, so a dispatch costs one dictionary lookup
/// however many reducers the app has. Several reducers may handle the same action type
/// (for different substates); they run in the order they were combined.
public struct AnyReducer<State>: Sendable {
    typealias Handler = @Sendable (inout State, any StoreAction) -> Void

    private(set) var handlers: [ObjectIdentifier: Handler]
    /// The action types this reducer can decode from the wire.
    public private(set) var actions: ActionRegistry

    private init(handlers: [ObjectIdentifier: Handler], actions: ActionRegistry) {
        self.handlers = handlers
        self.actions = actions
    }

    /// A reducer that handles nothing: the identity of composition.
    public static var empty: AnyReducer { AnyReducer(handlers: [:], actions: ActionRegistry()) }

    /// Wraps a ReMVVM-style ``Reducer`` type.
    public init<R: Reducer>(_ reducer: R.Type) where R.State == State {
        self = .on(R.Action.self) { state, action in R.reduce(state: state, with: action) }
    }

    /// A reducer for one action type written as a pure function.
    public static func on<Action: StoreAction>(
        _ type: Action.Type,
        reduce: @escaping @Sendable (State, Action) -> State
    ) -> AnyReducer {
        .on(type) { (state: inout State, action: Action) in state = reduce(state, action) }
    }

    /// A reducer for one action type that updates the state in place (cheaper for large states).
    public static func on<Action: StoreAction>(
        _ type: Action.Type,
        update: @escaping @Sendable (inout State, Action) -> Void
    ) -> AnyReducer {
        var actions = ActionRegistry()
        actions.register(Action.self)
        let handler: Handler = { state, action in
            // Handlers are looked up by the action's exact type, so this is a type check, not a cast.
            guard let action = action.exactly(Action.self) else { return }
            update(&state, action)
        }
        return AnyReducer(handlers: [ObjectIdentifier(Action.self): handler], actions: actions)
    }

    /// Combines reducers; for an action handled by several of them they run in this order.
    public init(_ reducers: [AnyReducer<State>]) {
        var handlers: [ObjectIdentifier: Handler] = [:]
        var actions = ActionRegistry()
        for reducer in reducers {
            actions.merge(reducer.actions)
            for (type, next) in reducer.handlers {
                if let first = handlers[type] {
                    handlers[type] = { state, action in
                        first(&state, action)
                        next(&state, action)
                    }
                } else {
                    handlers[type] = next
                }
            }
        }
        self.init(handlers: handlers, actions: actions)
    }

    /// Combines reducers; for an action handled by several of them they run in this order.
    public init(_ reducers: AnyReducer<State>...) {
        self.init(reducers)
    }

    /// Lifts a substate reducer into a reducer of `Root` that updates the substate at `keyPath`.
    public func lifted<Root>(_ keyPath: any WritableKeyPath<Root, State> & Sendable) -> AnyReducer<Root> {
        lifted { (root: inout Root, update: (inout State) -> Void) in update(&root[keyPath: keyPath]) }
    }

    /// Lifts a substate reducer through an accessor: `access(&root) { substate in ... }`.
    ///
    /// Use this instead of a key path on hot paths: a closure such as
    /// `{ root, body in body(&root.counter) }` compiles to a direct field access.
    public func lifted<Root>(
        _ access: @escaping @Sendable (inout Root, (inout State) -> Void) -> Void
    ) -> AnyReducer<Root> {
        AnyReducer<Root>(
            handlers: handlers.mapValues { handler in
                { root, action in access(&root) { handler(&$0, action) } }
            },
            actions: actions
        )
    }

    /// Applies the reducers registered for `action`'s type; returns false if there is none.
    @inline(__always)
    public func reduce(_ state: inout State, with action: any StoreAction) -> Bool {
        guard let handler = handlers[ObjectIdentifier(type(of: action))] else { return false }
        handler(&state, action)
        return true
    }
}
