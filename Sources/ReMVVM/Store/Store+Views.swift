import Synchronization

/// Views of a store at its current version, and at an earlier one when it is still kept.
@_spi(ReMVVMServer) public struct ViewsSince: Sendable {
    /// The store's version when the views were read.
    @_spi(ReMVVMServer) public let version: UInt64
    /// The current snapshot of each requested view, in index order.
    @_spi(ReMVVMServer) public let current: [ViewSnapshot]
    /// The snapshot of each requested view at the earlier version, in the same order; nil if
    /// any of them is older than the kept history (the client must be reset).
    @_spi(ReMVVMServer) public let past: [ViewSnapshot]?
}

/// One view's current snapshot and its snapshot at an earlier version, read with the store's version: what
/// ``ViewsSince`` holds for several views, without its lists.
@_spi(ReMVVMServer) public struct ViewSince: Sendable {
    /// The store's version when the view was read.
    @_spi(ReMVVMServer) public let version: UInt64
    /// The view's current snapshot.
    @_spi(ReMVVMServer) public let current: ViewSnapshot
    /// Its snapshot at the earlier version; nil if that is older than the kept history.
    @_spi(ReMVVMServer) public let past: ViewSnapshot?

    /// A view read at `version`.
    @_spi(ReMVVMServer) public init(version: UInt64, current: ViewSnapshot, past: ViewSnapshot?) {
        self.version = version
        self.current = current
        self.past = past
    }
}

extension Store {
    /// The registered view names, in index order.
    @_spi(ReMVVMServer) public var viewNames: [String] { projections.names }

    /// Every registered view.
    @_spi(ReMVVMServer) public var allViews: ViewSet { projections.all }

    /// The views with these names, or the first unknown name.
    @_spi(ReMVVMServer) public func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError> {
        projections.viewSet(named: names)
    }

    /// The one view called `name`, or the name as unknown.
    @_spi(ReMVVMServer) public func viewSet(named name: String) -> Result<ViewSet, UnknownViewError> {
        projections.viewSet(named: name)
    }

    /// The current snapshots of `views`, read atomically with the version.
    @_spi(ReMVVMServer) public func views(_ views: ViewSet) -> (version: UInt64, snapshots: [ViewSnapshot]) {
        core.withLock { core in (core.version, views.map { core.views[$0].current }) }
    }

    /// The current snapshots of `views` and, when `since` is given, their snapshots at `since`.
    @_spi(ReMVVMServer) public func views(_ views: ViewSet, since: UInt64?) -> ViewsSince {
        core.withLock { core in
            let current = views.map { core.views[$0].current }
            guard let since else { return ViewsSince(version: core.version, current: current, past: nil) }
            var past: [ViewSnapshot] = []
            past.reserveCapacity(current.count)
            for index in views {
                guard let snapshot = core.views[index].snapshot(at: since) else {
                    return ViewsSince(version: core.version, current: current, past: nil)
                }
                past.append(snapshot)
            }
            return ViewsSince(version: core.version, current: current, past: past)
        }
    }

    /// The current snapshot of the view at `index` and its snapshot at `since`, if kept: what a long-poll on
    /// one view reads at every change.
    @_spi(ReMVVMServer) public func view(_ index: Int, since: UInt64) -> ViewSince {
        core.withLock { core in
            ViewSince(
                version: core.version, current: core.views[index].current, past: core.views[index].snapshot(at: since))
        }
    }

    /// A view model computed from the current state, for tests and inspectors.
    public func viewModel(named name: String) -> (any ViewModel)? {
        guard let index = projections.index(of: name) else { return nil }
        return core.withLock { $0.views[index].current.viewModel }
    }
}
