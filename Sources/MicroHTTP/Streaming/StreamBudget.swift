import Synchronization

/// The server-wide count of bytes event streams hold written but not yet sent, against
/// ``HTTPServerConfiguration/streamBufferBudget``. Each attached stream adds what it buffers and takes away what it
/// hands to libmicrohttpd or drops (``StreamState``).
final class StreamBudget: Sendable {
    /// The budget in bytes.
    let limit: Int
    private let total = Atomic<Int>(0)
    /// Counts streams ended over the budget.
    let counters: TransportCounters

    init(limit: Int, counters: TransportCounters) {
        self.limit = limit
        self.counters = counters
    }

    /// Bytes buffered by all streams now.
    var buffered: Int { total.load(ordering: .relaxed) }

    /// Whether the streams' unsent bytes have reached the budget: a new stream is then refused.
    var isExhausted: Bool { buffered >= limit }

    /// Counts `count` more bytes if they fit the budget, or unconditionally when `force` (a stream that holds
    /// nothing unsent); returns whether they were counted.
    func take(_ count: Int, force: Bool) -> Bool {
        let after = total.add(count, ordering: .relaxed).newValue
        guard after > limit, !force else { return true }
        total.subtract(count, ordering: .relaxed)
        return false
    }

    /// A stream was ended for want of budget.
    func endedStream() {
        counters.streamsEndedOverBudget.add(1, ordering: .relaxed)
    }

    /// Uncounts `count` bytes that were sent or dropped.
    func release(_ count: Int) {
        if count > 0 { total.subtract(count, ordering: .relaxed) }
    }
}
