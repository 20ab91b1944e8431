import Synchronization

/// A clock whose sleeps return at once, so effects with delays run instantly in tests.
///
/// Its time moves by what is slept on it: a store's one-second follow-up window ends once effects have slept a
/// second on it, as it would in real time. Use a ``TestClock`` to decide yourself when delays end.
public final class ImmediateClock: Clock, Sendable {
    /// An instant on the immediate clock: moves forward only by sleeping.
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

    private let current = Mutex(Instant(offset: .zero))

    /// A clock at its origin.
    public init() {}

    /// The origin plus every deadline slept until so far (the latest of them).
    public var now: Instant { current.withLock { $0 } }

    /// The clock is exact: it moves to the deadlines it is given.
    public var minimumResolution: Duration { .zero }

    /// Returns at once (after a yield), with the clock moved to `deadline` if that is later than now; throws
    /// `CancellationError` when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { $0 = max($0, deadline) }
        await Task.yield()
    }
}
