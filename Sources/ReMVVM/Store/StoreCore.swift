/// Everything a store guards with its lock: the state, its version and what depends on them.
struct StoreCore<State> {
    var state: State
    var version: UInt64
    var views: [ViewHistory]
    var waiters = ChangeWaiters()
    var observers: [StateObserver<State>] = []
    var nextObserverID: UInt64 = 0
    var commitListeners: [@Sendable (CommitRecord) -> Void] = []
    var isClosed = false
}
