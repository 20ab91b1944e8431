/// How far apart the resume thread takes its batches (see ``ResumeQueue``).
///
/// libmicrohttpd 0.9.7x pays a walk of every suspended connection for each batch a worker picks up, so the
/// walk is worth sharing among as many answers as a bounded wait can gather: a batch waits out `gap` after
/// the previous one, unless it already holds `enough` items, which share the walk well and go at once.
struct ResumePacing: Sendable, Equatable {
    /// The least time from the end of one batch to the start of the next, in nanoseconds.
    var gap: Int64
    /// Pending items that start the next batch before the gap has passed (at least one).
    var enough: Int

    /// Every batch as soon as it has an item.
    static let none = ResumePacing(gap: 0, enough: 1)

    /// The server's rule, given how many connections are suspended and the longest an answer may wait
    /// (``HTTPServerConfiguration/maxResumeDelay``, in nanoseconds): a gap in proportion to the suspended
    /// connections that reaches `maxDelay` at 10,000 (800 ns each for the default 8 ms), and a batch of a
    /// fortieth of them goes at once.
    ///
    /// The gap keeps the walk's share of each answer about constant while answers trickle in (one long-poll on
    /// each of 10,000 sessions, each woken by a dispatch of its own: by default a lone answer waits at most 8
    /// ms, and with 100 parked 80 µs); `enough` lets a burst (one change answering 10,000 polls of one session)
    /// through in batches that each cost a walk of about 40 connections per answer, without waiting for the gap.
    static func server(suspended: Int, maxDelay: Int64) -> ResumePacing {
        let parked = max(suspended, 0)
        let delay = max(maxDelay, 0)
        // In floating point: the delay's share per connection may be under a nanosecond, and the product of two
        // integers could overflow for a long configured delay.
        let gap = parked >= saturation ? delay : Int64((Double(delay) * Double(parked) / Double(saturation)).rounded())
        return ResumePacing(gap: gap, enough: max(1, parked / 40))
    }

    /// The suspended connections at which the gap reaches the longest wait.
    private static let saturation = 10_000
}
