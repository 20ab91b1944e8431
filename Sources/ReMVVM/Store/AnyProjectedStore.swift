/// A ``ProjectedStore`` whose hot operations are closures made where the state type is known.
///
/// Calls through `any ProjectedStore` reach the store's generic, unspecialized code. Wrapping a
/// store with ``init(_:)`` from code that knows its state type captures closures that a build
/// with cross-module optimization specializes for that type, which is what the HTTP server
/// wants for every dispatch and read. It is otherwise the store itself: same state, same waiters.
@_spi(ReMVVMServer) public final class AnyProjectedStore: ProjectedStore {
    /// The wrapped store, for everything that is not on the hot path.
    @_spi(ReMVVMServer) public let base: any ProjectedStore
    private let dispatchActions:
        @Sendable ([any StoreAction], ViewSet, UInt64?, CommitMetadata) throws(StoreError) -> DispatchOutcome
    private let readViews: @Sendable (ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot])
    private let readViewsSince: @Sendable (ViewSet, UInt64?) -> ViewsSince
    private let readViewSince: @Sendable (Int, UInt64) -> ViewSince
    private let currentVersion: @Sendable () -> UInt64

    /// Wraps `store`; call it where `State` is a concrete type.
    @_spi(ReMVVMServer) public init<State>(_ store: Store<State>) {
        base = store
        dispatchActions = { actions, views, expected, metadata throws(StoreError) in
            try store.dispatch(actions, views: views, expectedVersion: expected, metadata: metadata)
        }
        readViews = { store.views($0) }
        readViewsSince = { store.views($0, since: $1) }
        readViewSince = { store.view($0, since: $1) }
        currentVersion = { store.version }
    }

    @_spi(ReMVVMServer) public var version: UInt64 { currentVersion() }
    @_spi(ReMVVMServer) public var viewNames: [String] { base.viewNames }
    @_spi(ReMVVMServer) public var allViews: ViewSet { base.allViews }
    @_spi(ReMVVMServer) public var parkedWaiters: Int { base.parkedWaiters }
    @_spi(ReMVVMServer) public var runningEffects: Int { base.runningEffects }
    @_spi(ReMVVMServer) public var identity: Identity? { base.identity }
    /// Effects running in every store of this process, read in O(1): what the server's metrics show.
    @_spi(ReMVVMServer) public static var runningEffectsInProcess: Int { EffectRunner.runningInProcessCount }

    @_spi(ReMVVMServer) public func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError> {
        base.viewSet(named: names)
    }

    @_spi(ReMVVMServer) public func viewSet(named name: String) -> Result<ViewSet, UnknownViewError> {
        base.viewSet(named: name)
    }

    @_spi(ReMVVMServer) public func dispatch(
        _ actions: [any StoreAction],
        views: ViewSet,
        expectedVersion: UInt64?,
        metadata: CommitMetadata
    ) throws(StoreError) -> DispatchOutcome {
        try dispatchActions(actions, views, expectedVersion, metadata)
    }

    @_spi(ReMVVMServer) public func views(_ views: ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot]) {
        readViews(views)
    }

    @_spi(ReMVVMServer) public func views(_ views: ViewSet, since: UInt64?) -> ViewsSince {
        readViewsSince(views, since)
    }

    @_spi(ReMVVMServer) public func view(_ index: Int, since: UInt64) -> ViewSince { readViewSince(index, since) }

    @_spi(ReMVVMServer) public func waitForChange(
        after version: UInt64,
        views: ViewSet,
        handler: @escaping @Sendable (StoreChange) -> Void
    ) -> WaitRegistration {
        base.waitForChange(after: version, views: views, handler: handler)
    }

    @discardableResult
    @_spi(ReMVVMServer) public func cancelWait(_ token: WaiterToken) -> Bool { base.cancelWait(token) }

    @_spi(ReMVVMServer) public func close() { base.close() }
}
