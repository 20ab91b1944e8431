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
    /// The topics the store subscribes to and how far it has read each (empty for an app without topics).
    var topics = TopicCursors()
}

/// A store's subscriptions and, per topic, the position of the last message it received.
struct TopicCursors {
    /// Whether the store takes part in topics yet: a restored store starts once it is back in service.
    var active = false
    var subscribed: Set<String> = []
    var positions: [String: UInt64] = [:]
}
