/// Parked change waiters, grouped by the views they watch.
///
/// Waiters that watch the same views share a group, so waking after a commit costs one
/// set test per distinct group rather than one per waiter. A lone waiter, the usual session's
/// (one client polling), is kept inline instead: its wait and its wake-up touch no dictionary,
/// whose storage a commit would otherwise read cold.
struct ChangeWaiters {
    typealias Handler = @Sendable (StoreChange) -> Void

    /// The waiter, while it is the only one; then `groups` is empty.
    private var lone: (id: UInt64, views: ViewSet, handler: Handler)?
    private var groups: [ViewSet: [UInt64: Handler]] = [:]
    private var nextID: UInt64 = 0
    private(set) var count = 0

    mutating func add(views: ViewSet, handler: @escaping Handler) -> WaiterToken {
        nextID += 1
        count += 1
        if count == 1 {
            lone = (nextID, views, handler)
        } else {
            if let lone {
                groups[lone.views, default: [:]][lone.id] = lone.handler
                self.lone = nil
            }
            groups[views, default: [:]][nextID] = handler
        }
        return WaiterToken(id: nextID, views: views)
    }

    /// Removes a waiter; false if it was already woken or removed.
    mutating func remove(_ token: WaiterToken) -> Bool {
        if let lone, lone.id == token.id {
            self.lone = nil
            count -= 1
            return true
        }
        guard groups[token.views]?.removeValue(forKey: token.id) != nil else { return false }
        if groups[token.views]?.isEmpty == true { groups[token.views] = nil }
        count -= 1
        return true
    }

    /// Removes and returns every waiter watching one of `changed`, with the views it saw change.
    ///
    /// The groups to wake are picked before any is removed: removing while iterating the keys would copy the
    /// whole dictionary on every commit. The usual session has a single group, which is emptied in place, so
    /// its storage serves the next waiter too.
    mutating func take(changed: ViewSet) -> [(Handler, ViewSet)] {
        guard count > 0 else { return [] }
        if let lone {
            guard lone.views.intersects(changed) else { return [] }
            self.lone = nil
            count = 0
            return [(lone.handler, lone.views.intersection(changed))]
        }
        if groups.count == 1, let (views, group) = groups.first {
            guard views.intersects(changed) else { return [] }
            groups.removeAll(keepingCapacity: true)
            count = 0
            let seen = views.intersection(changed)
            return group.values.map { ($0, seen) }
        }
        var woken: [(Handler, ViewSet)] = []
        for views in groups.keys.filter({ $0.intersects(changed) }) {
            guard let group = groups.removeValue(forKey: views) else { continue }
            let seen = views.intersection(changed)
            woken.reserveCapacity(woken.count + group.count)
            for handler in group.values { woken.append((handler, seen)) }
            count -= group.count
        }
        return woken
    }

    /// Removes and returns every waiter.
    mutating func takeAll() -> [Handler] {
        var all = groups.values.flatMap(\.values)
        if let lone { all.append(lone.handler) }
        lone = nil
        groups.removeAll()
        count = 0
        return all
    }
}
