/// What a change waiter is woken with.
@_spi(ReMVVMServer) public enum StoreChange: Sendable, Equatable {
    /// Some watched views changed; `version` is the store's version when the waiter was woken.
    case changed(version: UInt64, views: ViewSet)
    /// The store was closed; no change will come.
    case closed(version: UInt64)
}

/// Identifies a parked change waiter, to cancel it.
@_spi(ReMVVMServer) public struct WaiterToken: Sendable, Hashable {
    let id: UInt64
    let views: ViewSet
}

/// The result of asking to wait for a change.
@_spi(ReMVVMServer) public enum WaitRegistration: Sendable {
    /// A watched view already changed after the given version (or the store is closed): no wait.
    case ready(StoreChange)
    /// The waiter is parked; its handler runs once, on the thread of the dispatch that wakes it.
    case parked(WaiterToken)
}
