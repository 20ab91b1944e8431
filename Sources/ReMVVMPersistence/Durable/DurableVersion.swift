import Synchronization

/// The highest version of one session known to be on disk: set by the group-commit writer after each
/// transaction that wrote the session's commits or snapshot, read by the server without a lock.
///
/// A read whose version is at most this one is answered at once, whatever the writer's health or queue.
package final class DurableVersion: Sendable {
    private let value: Atomic<UInt64>

    /// A session whose versions up to `version` are already stored (0 for a new one, the loaded one's).
    package init(_ version: UInt64 = 0) {
        value = Atomic(version)
    }

    /// The highest version known to be durable.
    package var version: UInt64 { value.load(ordering: .acquiring) }

    /// Records that `version` is durable; an older version changes nothing.
    func advance(to version: UInt64) {
        var current = value.load(ordering: .relaxed)
        while current < version {
            let (exchanged, original) = value.compareExchange(
                expected: current, desired: version, successOrdering: .releasing, failureOrdering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
