import MicroHTTP

/// What the metrics read from the transport at a scrape: its connections now, and its refusals so far.
struct TransportGauges: Sendable {
    /// Open HTTP connections.
    var open = 0
    /// Connections parked without a thread (long-polls, idle event streams).
    var suspended = 0
    /// What the transport refused or cut on its own since it started.
    var statistics = TransportStatistics()
}
