/// A ``ProjectedStore`` whose hot operations are closures made where the state type is known.
///
/// Calls through `any ProjectedStore` reach the store's generic, unspecialized code. Wrapping a
/// store with ``init(_:)`` from code that knows its state type captures closures that a build
/// with cross-module optimization specializes for that type, which is what the HTTP server
/// wants for every dispatch and read. It is otherwise the store itself: same state, same waiters.
package final class AnyProjectedStore: ProjectedStore {
    /// The wrapped store, for everything that is not on the hot path.
    package let base: any ProjectedStore
    private let dispatchActions: @Sendable ([any StoreAction], ViewSet, UInt64?) throws(StoreError) -> DispatchOutcome
    private let readViews: @Sendable (ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot])
    private let readViewsSince: @Sendable (ViewSet, UInt64?) -> ViewsSince
    private let readViewSince: @Sendable (Int, UInt64) -> ViewSince
    private let currentVersion: @Sendable () -> UInt64

    /// Wraps `store`; call it where `State` is a concrete type.
    package init<State>(_ store: Store<State>) {
        base = store
        dispatchActions = { actions, views, expected throws(StoreError) in
            try store.dispatch(actions, views: views, expectedVersion: expected)
        }
        readViews = { store.views($0) }
        readViewsSince = { store.views($0, since: $1) }
        readViewSince = { store.view($0, since: $1) }
        currentVersion = { store.version }
    }

    package var version: UInt64 { currentVersion() }
    package var viewNames: [String] { base.viewNames }
    package var allViews: ViewSet { base.allViews }
    package var parkedWaiters: Int { base.parkedWaiters }
    package var runningEffects: Int { base.runningEffects }

    package func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError> {
        base.viewSet(named: names)
    }

    package func viewSet(named name: String) -> Result<ViewSet, UnknownViewError> {
        base.viewSet(named: name)
    }

    package func dispatch(
        _ actions: [any StoreAction],
        views: ViewSet,
        expectedVersion: UInt64?
    ) throws(StoreError) -> DispatchOutcome {
        try dispatchActions(actions, views, expectedVersion)
    }

    package func views(_ views: ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot]) { readViews(views) }

    package func views(_ views: ViewSet, since: UInt64?) -> ViewsSince { readViewsSince(views, since) }

    package func view(_ index: Int, since: UInt64) -> ViewSince { readViewSince(index, since) }

    package func waitForChange(
        after version: UInt64,
        views: ViewSet,
        handler: @escaping @Sendable (StoreChange) -> Void
    ) -> WaitRegistration {
        base.waitForChange(after: version, views: views, handler: handler)
    }

    @discardableResult
    package func cancelWait(_ token: WaiterToken) -> Bool { base.cancelWait(token) }

    package func close() { base.close() }
}
