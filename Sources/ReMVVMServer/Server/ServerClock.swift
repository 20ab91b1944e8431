import Dispatch

/// The time the long-poll timer and the housekeeping go by: monotonic nanoseconds, and a sleep that an alarm cuts
/// short. Injected so that tests move time by hand instead of waiting for it to pass.
protocol ServerClock: Sendable {
    /// Now, in monotonic nanoseconds.
    func now() -> Int64

    /// Blocks the calling thread until `deadline` (in ``now()``'s nanoseconds) has passed or `alarm` is signalled,
    /// whichever comes first.
    func sleep(until deadline: Int64, alarm: DispatchSemaphore)
}

/// The machine's monotonic clock.
struct SystemServerClock: ServerClock {
    /// Beyond this a sleep has no timeout: only the alarm ends it.
    private static let longestWait: Int64 = 3_600 * 1_000_000_000

    func now() -> Int64 { Session.now() }

    func sleep(until deadline: Int64, alarm: DispatchSemaphore) {
        let remaining = deadline - now()
        guard remaining > 0 else { return }
        let timeout: DispatchTime =
            remaining > Self.longestWait ? .distantFuture : .now() + .nanoseconds(Int(remaining))
        _ = alarm.wait(timeout: timeout)
    }
}
