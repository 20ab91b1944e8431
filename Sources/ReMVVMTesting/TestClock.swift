import Synchronization

/// A clock that moves only when the test calls ``advance(by:)``, so a test decides when an effect's delay, a
/// timeout or a rate window ends, and never waits for time to pass.
///
/// ```swift
/// let clock = TestClock()
/// var services = Services()
/// services.clock = clock
/// let store = TestStore(app.definition(services: services))
/// store.send(Search(text: "swift")) { $0.searching = true }
/// await clock.waitForSleepers()  // The effect sleeps: an advance now ends its delay.
/// clock.advance(by: .milliseconds(300))  // The debounce ends.
/// await store.receive(SearchResults.self) { ... }
/// ```
public final class TestClock: Clock, Sendable {
    /// An instant on the test clock: time since its origin.
    public struct Instant: InstantProtocol {
        /// Time since the clock's origin.
        public var offset: Duration

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        /// Sleeps cancelled before they were registered: they end at once when they are.
        var cancelled: Set<UInt64> = []
        /// Those waiting in ``TestClock/waitForSleepers(_:)``, with the count each waits for.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// Removes and returns the watchers whose count of sleepers is reached.
        mutating func releaseWatchers() -> [CheckedContinuation<Void, Never>] {
            let reached = sleepers.count
            let released = watchers.filter { $0.count <= reached }.map(\.continuation)
            watchers.removeAll { $0.count <= reached }
            return released
        }
    }

    private typealias Watcher = CheckedContinuation<Void, Never>

    private let state = Mutex(State())

    /// A clock at its origin.
    public init() {}

    /// The current instant: the origin plus every ``advance(by:)`` so far.
    public var now: Instant { state.withLock { $0.now } }

    /// The clock is exact: it moves by the durations it is given.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for the clock to move.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the sleeps waiting for the clock to move, earliest first, and the clock's instant.
    var pendingDeadlines: (now: Instant, deadlines: [Instant]) {
        state.withLock { state in (state.now, state.sleepers.values.map(\.deadline).sorted()) }
    }

    /// Says what sleeps on this clock, when something does: why an effect has not gone on.
    var sleepersNote: String? {
        let (now, deadlines) = pendingDeadlines
        guard let next = deadlines.first else { return nil }
        let count = deadlines.count == 1 ? "1 sleep" : "\(deadlines.count) sleeps"
        return "the TestClock has \(count) it was not advanced past (the next ends at \(next.offset), the clock is at "
            + "\(now.offset)): `await clock.waitForSleepers()`, then `clock.advance(by:)`"
    }

    /// Suspends until ``advance(by:)`` reaches `deadline`; throws `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        // A cancellation that came after the sleep ended leaves its mark: remove it.
        defer { state.withLock { _ = $0.cancelled.remove(id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (ending, watchers) = state.withLock { state -> (Result<Void, any Error>?, [Watcher]) in
                    if state.cancelled.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= state.now { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.releaseWatchers())
                }
                if let ending { continuation.resume(with: ending) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` sleeps wait for the clock to move: an effect has reached its delay, so an
    /// ``advance(by:)`` now decides when the delay ends.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state in
                guard state.sleepers.count < count else { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock forward and resumes, earliest first, every sleep whose deadline it reaches.
    public func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }.sorted {
                $0.value.deadline < $1.value.deadline
            }
            for (id, _) in due { state.sleepers[id] = nil }
            return due.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}
