import Dispatch
import MicroHTTP
import Synchronization

/// Fires callbacks at deadlines, checked by the server's housekeeper: the long-poll timeouts.
///
/// Deadlines are kept in buckets of one tick, so each check touches only what expires in it,
/// however many polls are parked. The housekeeper sleeps until the earliest bucket
/// (``sleep(until:)``), and a deadline scheduled before the time it sleeps until wakes it. A callback is found
/// again by its id, a slot table's handle: cancelling, which every answered long-poll does, touches one slot.
final class DeadlineTimer: Sendable {
    typealias Callback = @Sendable () -> Void

    private struct State {
        var callbacks = CallbackTable()
        /// The ids due in each tick; a cancelled one stays until its tick, where it finds nothing.
        var buckets: [Int64: [UInt64]] = [:]
        var lastFiredBucket: Int64 = 0
        /// The earliest bucket with callbacks (some may have been cancelled); `.max` when none.
        var earliestBucket = Int64.max
        /// When the sleeping housekeeper wakes (monotonic nanoseconds); `.min` while it is awake, when a new
        /// deadline needs no wake-up because it looks at the buckets again before it sleeps.
        var plannedWake = Int64.min
    }

    /// A bucket's width: 50 ms.
    static let tickNanos: Int64 = 50_000_000
    private let state = Mutex(State())
    /// Signalled to wake the sleeping housekeeper early.
    private let alarm = DispatchSemaphore(value: 0)
    /// How many times the alarm was rung (for tests: a deadline after the planned wake rings none).
    private let rings = Atomic<Int>(0)
    /// The time deadlines are kept in.
    let clock: any ServerClock

    /// How many callbacks wait.
    var count: Int { state.withLock { $0.callbacks.count } }

    /// Schedules `callback` after `delay`; returns an id for ``cancel(_:)``.
    func schedule(after delay: Duration, _ callback: @escaping Callback) -> UInt64 {
        let (seconds, attoseconds) = delay.components
        let deadline = clock.now() + seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let (id, wakes) = state.withLock { state -> (UInt64, Bool) in
            let bucket = max((deadline + Self.tickNanos - 1) / Self.tickNanos, state.lastFiredBucket + 1)
            let id = state.callbacks.insert(callback)
            state.buckets[bucket, default: []].append(id)
            state.earliestBucket = min(state.earliestBucket, bucket)
            let due = bucket * Self.tickNanos
            guard due < state.plannedWake else { return (id, false) }
            state.plannedWake = due
            return (id, true)
        }
        if wakes { ring() }
        return id
    }

    /// Removes a callback that has not fired; false if it already did.
    @discardableResult
    func cancel(_ id: UInt64) -> Bool {
        state.withLock { $0.callbacks.discard(id) }
    }

    /// Fires every callback whose deadline has passed.
    func fireDue() {
        let now = clock.now() / Self.tickNanos
        let due = state.withLock { state -> [Callback] in
            var due: [Callback] = []
            guard state.earliestBucket <= now else {
                state.lastFiredBucket = max(state.lastFiredBucket, now)  // Nothing in between: no bucket to visit.
                return due
            }
            while state.lastFiredBucket < now {
                state.lastFiredBucket += 1
                for id in state.buckets.removeValue(forKey: state.lastFiredBucket) ?? [] {
                    if let callback = state.callbacks.remove(id) { due.append(callback) }
                }
            }
            state.earliestBucket = state.buckets.keys.min() ?? .max
            return due
        }
        for callback in due { callback() }
    }

    /// Sleeps until `limit` (monotonic nanoseconds) or the earliest deadline, whichever comes first, and is
    /// woken sooner by a deadline scheduled meanwhile before that time, or by ``interrupt()``. For the one
    /// thread that fires the callbacks.
    func sleep(until limit: Int64) {
        let wake = state.withLock { state -> Int64 in
            let earliest = state.earliestBucket == .max ? Int64.max : state.earliestBucket * Self.tickNanos
            state.plannedWake = min(limit, earliest)
            return state.plannedWake
        }
        clock.sleep(until: wake, alarm: alarm)
        state.withLock { $0.plannedWake = .min }
    }

    /// Wakes the sleeper now (to stop it).
    func interrupt() {
        ring()
    }

    /// How many times the sleeper was woken early, by a nearer deadline or ``interrupt()``.
    var alarmsRung: Int { rings.load(ordering: .relaxed) }

    private func ring() {
        rings.add(1, ordering: .relaxed)
        alarm.signal()
    }

    /// Fires every callback now (shutdown).
    func fireAll() {
        let all = state.withLock { state -> [Callback] in
            state.buckets.removeAll()
            state.earliestBucket = .max
            return state.callbacks.removeAll()
        }
        for callback in all { callback() }
    }

    init(clock: any ServerClock = SystemServerClock()) {
        self.clock = clock
        state.withLock { $0.lastFiredBucket = clock.now() / Self.tickNanos }
    }
}
