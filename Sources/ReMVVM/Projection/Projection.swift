/// One named view-model factory: how a view is computed from the state, and when it changed.
struct Projection<State>: Sendable {
    /// The view's name on the wire (`counter`).
    let name: String
    /// Computes the view model from scratch.
    let make: @Sendable (State) -> any ViewModel
    /// Whether the view's input differs between `old` and `new`: only then is its current model read.
    ///
    /// Kept apart from ``update`` so that the views a commit leaves alone cost a comparison of substates and
    /// nothing else: their snapshots, one object per view of every session, stay out of the cache.
    let inputChanged: @Sendable (_ old: State, _ new: State) -> Bool
    /// Returns the view model of `state` when it differs from `current`, nil otherwise.
    let update: @Sendable (_ state: State, _ current: any ViewModel) -> (any ViewModel)?

    /// A projection of a substate: it is recomputed only when the substate changed.
    init<Substate: Equatable & SendableMetatype, Model: ViewModel>(
        name: String,
        source: @escaping @Sendable (State) -> Substate,
        factory: @escaping @Sendable (Substate) -> Model
    ) {
        self.name = name
        make = { factory(source($0)) }
        inputChanged = { old, new in source(old) != source(new) }
        update = { state, current in
            let model = factory(source(state))
            return current.isEqual(to: model) ? nil : model
        }
    }

    /// A projection of the whole state: recomputed after every dispatch and compared.
    init<Model: ViewModel>(name: String, factory: @escaping @Sendable (State) -> Model) {
        self.name = name
        make = { factory($0) }
        inputChanged = { _, _ in true }
        update = { state, current in
            let model = factory(state)
            return current.isEqual(to: model) ? nil : model
        }
    }
}

extension ViewModel {
    /// Whether `other` is a view model of the same type and value.
    ///
    /// Every projection asks this after every dispatch, with the current model as an existential.
    @inline(__always)
    func isEqual<Other: ViewModel>(to other: Other) -> Bool {
        guard Self.self == Other.self else { return false }
        // Safety: the same type (checked above), so this reinterprets a value as its own type; a checked cast
        // here costs what `StoreAction.exactly(_:)`'s Safety comment measures (about 15 ns per projection per
        // dispatch in the `make bench` build, part of the counter store's +20%).
        return unsafeBitCast(self, to: Other.self) == other
    }
}
