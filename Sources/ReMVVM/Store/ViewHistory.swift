/// The recent values of one view: enough to patch a client a few versions behind.
///
/// The current value plus a ring of at most `limit - 1` earlier ones, so recording a change never
/// shifts the others. The ring is empty, and allocates nothing, until the view first changes:
/// most sessions' views never do.
struct ViewHistory {
    private(set) var current: ViewSnapshot
    /// Earlier snapshots in a ring; `head` indexes the oldest once the ring is full.
    private var ring: [ViewSnapshot] = []
    private var head = 0

    init(initial: ViewSnapshot) {
        current = initial
    }

    /// Makes `snapshot` the current value, keeping at most `limit` values in all.
    mutating func append(_ snapshot: ViewSnapshot, limit: Int) {
        let capacity = max(limit, 1) - 1
        if ring.count < capacity {
            ring.append(current)
        } else if capacity > 0 {
            ring[head] = current
            head = (head + 1) % ring.count
        }
        current = snapshot
    }

    /// The view's value at `version`, or nil when that version is older than what is kept.
    func snapshot(at version: UInt64) -> ViewSnapshot? {
        if current.version <= version { return current }
        // Walk from the newest to the oldest.
        for step in 0..<ring.count {
            let snapshot = ring[(head + ring.count - 1 - step) % ring.count]
            if snapshot.version <= version { return snapshot }
        }
        return nil
    }
}
