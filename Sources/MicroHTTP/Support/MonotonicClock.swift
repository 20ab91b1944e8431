import CMicroHTTPD
import Glibc

/// Monotonic time as plain nanoseconds, read once per request.
///
/// `ContinuousClock` gives a `Duration`, and turning one into a number goes through 128-bit arithmetic; the
/// request path reads the clock at the start, to touch the session and to time the dispatch, and the resume
/// thread paces its batches with it, so both keep one integer instead. Shared within the package.
package enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot), never going backwards.
    package static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    }

    /// A duration as whole nanoseconds, saturating instead of overflowing (a TTL of centuries).
    package static func nanoseconds(of duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, carry) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !carry else { return seconds < 0 ? .min : .max }
        return total
    }
}
