import Synchronization

/// What a ``TopicHub`` has done since it was made: for metrics and for tests that check delivery is bounded.
public struct TopicStatistics: Sendable, Equatable {
    /// Messages published, counted once per topic.
    public var published: Int
    /// Messages handed to sessions (one per subscriber per message), including retained history.
    public var delivered: Int
    /// Delivery passes: each is one commit of at most ``TopicConfiguration/maxDeliveriesPerPass`` messages.
    public var passes: Int
    /// Passes after the first of a session's inbox that held more than one: offered to the hub's
    /// ``WorkScheduler`` (and run by the caller when it declined).
    public var deferredPasses: Int
    /// Gaps reported to sessions that were away longer than a topic's retained history.
    public var gaps: Int
    /// Wake-ups from a shared log: another node published (``TopicLog/watchTopics(_:)``).
    public var wakeUps: Int
    /// Reads of a shared log that failed (retried at the next publish, wake-up or subscription).
    public var readFailures: Int
    /// Topics dropped from memory because nobody used them for ``TopicConfiguration/retention``.
    public var dropped: Int

    /// The shared counters behind the statistics.
    final class Counters: Sendable {
        let published = Atomic<Int>(0)
        let delivered = Atomic<Int>(0)
        let passes = Atomic<Int>(0)
        let deferredPasses = Atomic<Int>(0)
        let gaps = Atomic<Int>(0)
        let wakeUps = Atomic<Int>(0)
        let readFailures = Atomic<Int>(0)
        let dropped = Atomic<Int>(0)

        var snapshot: TopicStatistics {
            TopicStatistics(
                published: published.load(ordering: .relaxed), delivered: delivered.load(ordering: .relaxed),
                passes: passes.load(ordering: .relaxed), deferredPasses: deferredPasses.load(ordering: .relaxed),
                gaps: gaps.load(ordering: .relaxed), wakeUps: wakeUps.load(ordering: .relaxed),
                readFailures: readFailures.load(ordering: .relaxed), dropped: dropped.load(ordering: .relaxed))
        }
    }
}
