/// The recent values of one view: enough to patch a client a few versions behind.
///
/// A ring of at most `limit` snapshots, so recording a change never shifts the others.
struct ViewHistory {
    private(set) var current: ViewSnapshot
    /// Snapshots in a ring; `head` indexes the oldest once the ring is full.
    private var ring: [ViewSnapshot]
    private var head = 0

    init(initial: ViewSnapshot) {
        current = initial
        ring = [initial]
    }

    mutating func append(_ snapshot: ViewSnapshot, limit: Int) {
        if ring.count < max(limit, 1) {
            ring.append(snapshot)
        } else {
            ring[head] = snapshot
            head = (head + 1) % ring.count
        }
        current = snapshot
    }

    /// The view's value at `version`, or nil when that version is older than what is kept.
    func snapshot(at version: UInt64) -> ViewSnapshot? {
        if current.version <= version { return current }
        // Walk from the newest to the oldest.
        for step in 1..<ring.count {
            let snapshot = ring[(head + ring.count - 1 - step) % ring.count]
            if snapshot.version <= version { return snapshot }
        }
        return nil
    }
}
