import Synchronization

/// The views of a definition's initial state at version 0, made once and shared by every fresh store.
///
/// Every new session starts from the same state, so its views are the same values. Sharing the
/// snapshots, and with them the JSON each one caches once a client has read it, keeps a fresh
/// session from holding its own copy of every view: that copy was most of an idle session's memory.
final class InitialViews: Sendable {
    private let snapshots = Mutex<[ViewSnapshot]?>(nil)

    /// The shared snapshots, made by `make` on first use.
    func snapshots(make: () -> [ViewSnapshot]) -> [ViewSnapshot] {
        snapshots.withLock { snapshots in
            if let snapshots { return snapshots }
            let made = make()
            snapshots = made
            return made
        }
    }
}
