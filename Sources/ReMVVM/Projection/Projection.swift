/// One named view-model factory: how a view is computed from the state, and when it changed.
struct Projection<State>: Sendable {
    /// The view's name on the wire (`counter`).
    let name: String
    /// Computes the view model from scratch.
    let make: @Sendable (State) -> any ViewModel
    /// Returns the new view model when the view changed between `old` and `new`, nil otherwise.
    let update: @Sendable (_ old: State, _ new: State, _ current: any ViewModel) -> (any ViewModel)?

    /// A projection of a substate: it is recomputed only when the substate changed.
    init<Substate: Equatable & SendableMetatype, Model: ViewModel>(
        name: String,
        source: @escaping @Sendable (State) -> Substate,
        factory: @escaping @Sendable (Substate) -> Model
    ) {
        self.name = name
        make = { factory(source($0)) }
        update = { old, new, current in
            let substate = source(new)
            guard source(old) != substate else { return nil }
            let model = factory(substate)
            return current.isEqual(to: model) ? nil : model
        }
    }

    /// A projection of the whole state: recomputed after every dispatch and compared.
    init<Model: ViewModel>(name: String, factory: @escaping @Sendable (State) -> Model) {
        self.name = name
        make = { factory($0) }
        update = { _, new, current in
            let model = factory(new)
            return current.isEqual(to: model) ? nil : model
        }
    }
}

extension ViewModel {
    /// Whether `other` is a view model of the same type and value, without a dynamic cast.
    @inline(__always)
    func isEqual<Other: ViewModel>(to other: Other) -> Bool {
        Self.self == Other.self && unsafeBitCast(self, to: Other.self) == other
    }
}
