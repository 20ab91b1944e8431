/// A store as the HTTP layer sees it: actions in, projections out, never the raw state.
///
/// ``Store`` conforms for every state type, so a server can hold the stores of its sessions
/// without knowing the app's types.
@_spi(ReMVVMServer) public protocol ProjectedStore: AnyObject, Sendable {
    /// The version of the current state.
    var version: UInt64 { get }
    /// The registered view names, in index order.
    var viewNames: [String] { get }
    /// Every registered view.
    var allViews: ViewSet { get }
    /// How many change waiters are parked.
    var parkedWaiters: Int { get }
    /// How many effects are running.
    var runningEffects: Int { get }
    /// Whom the session belongs to; nil for an anonymous session.
    var identity: Identity? { get }
    /// The views with these names, or the first unknown name.
    func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError>
    /// The one view called `name`, or the name as unknown.
    func viewSet(named name: String) -> Result<ViewSet, UnknownViewError>
    /// Dispatches actions as one batch; see ``Store/dispatch(_:views:expectedVersion:metadata:)``.
    func dispatch(
        _ actions: [any StoreAction],
        views: ViewSet,
        expectedVersion: UInt64?,
        metadata: CommitMetadata
    ) throws(StoreError) -> DispatchOutcome
    /// The current snapshots of `views` read atomically with the version.
    func views(_ views: ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot])
    /// The current snapshots of `views` and their snapshots at `since`, if kept.
    func views(_ views: ViewSet, since: UInt64?) -> ViewsSince
    /// The current snapshot of the view at `index` and its snapshot at `since`, if kept; see
    /// ``Store/view(_:since:)``.
    func view(_ index: Int, since: UInt64) -> ViewSince
    /// Parks a change waiter; see ``Store/waitForChange(after:views:handler:)``.
    func waitForChange(
        after version: UInt64,
        views: ViewSet,
        handler: @escaping @Sendable (StoreChange) -> Void
    ) -> WaitRegistration
    /// Removes a parked waiter.
    @discardableResult func cancelWait(_ token: WaiterToken) -> Bool
    /// Ends the store.
    func close()
}

@_spi(ReMVVMServer) extension Store: ProjectedStore {}

extension ProjectedStore {
    /// No identity, for a store that keeps none.
    @_spi(ReMVVMServer) public var identity: Identity? { nil }

    /// One view through the list form, for a store that has no shorter way.
    @_spi(ReMVVMServer) public func view(_ index: Int, since: UInt64) -> ViewSince {
        let views = views(ViewSet(indices: [index]), since: since)
        return ViewSince(version: views.version, current: views.current[0], past: views.past?[0])
    }

    /// The one view called `name`, through the list form, for a store that has no shorter way.
    @_spi(ReMVVMServer) public func viewSet(named name: String) -> Result<ViewSet, UnknownViewError> {
        viewSet(named: [name])
    }
}
