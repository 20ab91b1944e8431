import Synchronization

/// Fires callbacks at deadlines, checked by the server's ticker: the long-poll timeouts.
///
/// Deadlines are kept in buckets of one tick, so each tick touches only what expires in it,
/// however many polls are parked.
final class DeadlineTimer: Sendable {
    typealias Callback = @Sendable () -> Void

    private struct State {
        var callbacks: [UInt64: Callback] = [:]
        var buckets: [Int64: [UInt64]] = [:]
        var nextID: UInt64 = 0
        var lastFiredBucket: Int64 = 0
    }

    static let tick: Duration = .milliseconds(50)
    private static let tickNanos: Int64 = 50_000_000
    private let state = Mutex(State())

    /// How many callbacks wait.
    var count: Int { state.withLock { $0.callbacks.count } }

    /// Schedules `callback` after `delay`; returns an id for ``cancel(_:)``.
    func schedule(after delay: Duration, _ callback: @escaping Callback) -> UInt64 {
        let (seconds, attoseconds) = delay.components
        let deadline = Session.now() + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let bucket = (deadline + Self.tickNanos - 1) / Self.tickNanos
        return state.withLock { state in
            state.nextID += 1
            state.callbacks[state.nextID] = callback
            state.buckets[max(bucket, state.lastFiredBucket + 1), default: []].append(state.nextID)
            return state.nextID
        }
    }

    /// Removes a callback that has not fired; false if it already did.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
        state.withLock { $0.callbacks.removeValue(forKey: id) != nil }
    }

    /// Fires every callback whose deadline has passed.
    func fireDue() {
        let now = Session.now() / Self.tickNanos
        let due = state.withLock { state -> [Callback] in
            var due: [Callback] = []
            while state.lastFiredBucket < now {
                state.lastFiredBucket += 1
                for id in state.buckets.removeValue(forKey: state.lastFiredBucket) ?? [] {
                    if let callback = state.callbacks.removeValue(forKey: id) { due.append(callback) }
                }
            }
            return due
        }
        for callback in due { callback() }
    }

    /// Fires every callback now (shutdown).
    func fireAll() {
        let all = state.withLock { state -> [Callback] in
            defer {
                state.callbacks.removeAll()
                state.buckets.removeAll()
            }
            return Array(state.callbacks.values)
        }
        for callback in all { callback() }
    }

    init() {
        state.withLock { $0.lastFiredBucket = Session.now() / Self.tickNanos }
    }
}
