/// How far apart a worker takes its batches of resumes (see ``WorkerLoop``).
///
/// libmicrohttpd 0.9.7x pays a walk of every connection suspended on a daemon for each pass in which it resumes
/// any, so the walk is worth sharing among as many answers as a bounded wait can gather: a worker takes its
/// queued resumes once `gap` has passed since its last batch, or at once when `enough` are queued.
struct ResumePacing: Sendable, Equatable {
    /// The least time from the end of one batch to the start of the next, in nanoseconds.
    var gap: Int64
    /// Queued resumes that start the next batch before the gap has passed (at least one).
    var enough: Int

    /// Every batch as soon as it has an item.
    static let none = ResumePacing(gap: 0, enough: 1)

    /// The rule for a worker with `suspended` connections parked on its daemon, and `maxDelay` nanoseconds the
    /// longest a resume may wait (``TransportTuning/maxResumeDelay``): a gap in proportion to the walk, which
    /// reaches `maxDelay` at ``saturation`` connections, and a batch of a fortieth of them goes at once.
    ///
    /// The gap keeps the walk's share of each answer about constant while answers trickle in (one long-poll on
    /// each of 10,000 sessions, each woken by a dispatch of its own); `enough` lets a burst (one change answering
    /// 10,000 polls of one session) through in batches that each cost a walk of about 40 connections per answer.
    static func worker(suspended: Int, maxDelay: Int64) -> ResumePacing {
        let parked = max(suspended, 0)
        let delay = max(maxDelay, 0)
        // In floating point: the delay's share per connection may be under a nanosecond, and the product of two
        // integers could overflow for a long configured delay.
        let gap = parked >= saturation ? delay : Int64((Double(delay) * Double(parked) / Double(saturation)).rounded())
        return ResumePacing(gap: gap, enough: max(1, parked / 40))
    }

    /// The connections suspended on one daemon at which the gap reaches the longest wait: 5,000, a worker's
    /// share of the 10,000 long-polls the benchmarks park on two workers (BENCHMARKS.md).
    static let saturation = 5_000
}
