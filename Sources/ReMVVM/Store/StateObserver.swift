/// Identifies a state observer, to remove it.
public struct ObserverToken: Sendable, Hashable {
    let id: UInt64
}

/// An observer of one substate (ReMVVM's `StateMapper` plus `StateObserver`).
struct StateObserver<State>: Sendable {
    let id: UInt64
    /// Called after a commit; tells the observer if its substate changed.
    let notify: @Sendable (_ old: State, _ new: State, _ version: UInt64) -> Void

    init<Substate: Equatable & SendableMetatype>(
        id: UInt64,
        source: @escaping @Sendable (State) -> Substate,
        onChange: @escaping @Sendable (Substate, UInt64) -> Void
    ) {
        self.id = id
        notify = { old, new, version in
            let substate = source(new)
            if source(old) != substate { onChange(substate, version) }
        }
    }
}
