/// How long to wait before trying again after a retryable failure: exponential backoff with jitter.
///
/// Jitter spreads the retries of many clients that lost the same server at the same moment, so a restarted server
/// is not met by all of them at once. A server's `Retry-After` is a floor, never shortened.
public struct RetryPolicy: Sendable, Hashable {
    /// The first wait.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration
    /// The share of each wait that is random: `0.5` waits between 75% and 125% of the nominal delay.
    public var jitter: Double

    /// Starts at `initialDelay`, doubles up to `maximumDelay`, each wait varied by `jitter`.
    public init(
        initialDelay: Duration = .milliseconds(200), maximumDelay: Duration = .seconds(10), jitter: Double = 0.5
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// The wait before retry number `attempt` (0 for the first), at least `retryAfter` when the server gave one.
    public func delay(attempt: Int, retryAfter: Duration? = nil) -> Duration {
        let factor = Double(1 << min(attempt, 30))
        let nominal = min(initialDelay * factor, maximumDelay)
        let varied = nominal * (1 - jitter / 2 + Double.random(in: 0...jitter))
        guard let retryAfter else { return varied }
        // A little over the server's ask, so the clients it told to wait do not all come back in the same instant.
        return retryAfter + initialDelay * Double.random(in: 0...jitter)
    }
}
