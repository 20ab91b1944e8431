/// When to reconnect after another node took the session over: at once the first time, after the retry policy's
/// growing delays when moves follow one another.
///
/// Behind a balancer the reconnect reaches the new owner, and that is the end of it. Two clients of one session
/// that reach two nodes directly (no balancer, or one that does not route by session) would instead take the
/// session from each other on every reconnect, as fast as the nodes allow: about 30 takeovers a second were
/// seen with two event streams. Growing waits bound that to a few. A value-type state machine with no I/O.
struct MoveBackoff: Sendable {
    private var streak = 0
    private var lastMove: ContinuousClock.Instant?

    /// A move at `now`: the retry attempt whose delay to wait before reconnecting, or nil to reconnect at once.
    /// A move less than `window` after the previous one continues a streak.
    mutating func moved(at now: ContinuousClock.Instant, window: Duration) -> Int? {
        let previous = lastMove
        lastMove = now
        guard let previous, now - previous < window else {
            streak = 0
            return nil
        }
        streak += 1
        return streak - 1
    }

    /// The window in which moves are in a row, for `retry`: in a tug of war at the longest delay, each side moves
    /// about once per two of its (jittered) delays, so four of them keep the streak going.
    static func window(for retry: RetryPolicy) -> Duration {
        retry.maximumDelay * 4
    }
}
