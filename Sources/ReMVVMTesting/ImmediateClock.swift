/// A clock whose sleeps return at once, so effects with delays run instantly in tests.
public struct ImmediateClock: Clock {
    /// An instant on the immediate clock: moves forward only by sleeping.
    public struct Instant: InstantProtocol {
        /// Time since the clock's origin.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    /// A clock at its origin.
    public init() {}

    public var now: Instant { Instant(offset: .zero) }
    public var minimumResolution: Duration { .zero }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        await Task.yield()
    }
}
