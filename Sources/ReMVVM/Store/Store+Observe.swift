import Synchronization

extension Store {
    /// Follows a substate (ReMVVM's `StateMapper`): `onChange` runs after every commit that
    /// changed it, with the new value and version, in commit order.
    ///
    /// `onChange` runs inside the store's serial section, so it sees every version in order;
    /// it must be quick and must not dispatch to this store synchronously (start a task or an
    /// effect instead).
    @discardableResult
    public func observe<Substate: Equatable & SendableMetatype>(
        _ source: @escaping @Sendable (State) -> Substate,
        onChange: @escaping @Sendable (Substate, UInt64) -> Void
    ) -> ObserverToken {
        core.withLock { core in
            core.nextObserverID += 1
            core.observers.append(StateObserver(id: core.nextObserverID, source: source, onChange: onChange))
            return ObserverToken(id: core.nextObserverID)
        }
    }

    /// Stops an observer.
    public func removeObserver(_ token: ObserverToken) {
        core.withLock { core in core.observers.removeAll { $0.id == token.id } }
    }
}

extension Store {
    /// Calls `listener` with every commit, in version order, inside the serial section.
    ///
    /// Meant for action logs and test stores: it must be quick and must not dispatch.
    public func onCommit(_ listener: @escaping @Sendable (CommitRecord) -> Void) {
        core.withLock { $0.commitListeners.append(listener) }
    }
}
