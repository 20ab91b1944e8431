import Synchronization

/// The server's counters in Prometheus text form: requests by route and status, and the
/// dispatch latency histogram. Gauges are read live when `/metrics` is scraped.
final class ServerMetrics: Sendable {
    /// Everything counted, under one lock taken once per answer.
    private struct Counts {
        /// Answers by `route index * statusSlots + status - 100`, for the statuses 100...599.
        var byRouteAndStatus: [Int]
        /// Answers with any other status, by `route index << 16 | status` (rare: never sent by the API).
        var unusual: [Int: Int] = [:]
        var dispatch = Histogram()
    }

    private static let statusSlots = 500
    private let counts: Mutex<Counts>
    /// The route labels, by route index.
    private let routeLabels: [String]

    /// A registry for routes labelled `routeLabels[index]`.
    init(routeLabels: [String]) {
        self.routeLabels = routeLabels
        counts = Mutex(Counts(byRouteAndStatus: Array(repeating: 0, count: routeLabels.count * Self.statusSlots)))
    }

    /// Counts one answered request and, for a dispatch, adds its duration to the latency histogram.
    func record(routeIndex: Int, status: Int, dispatchNanoseconds: Int64? = nil) {
        let seconds = dispatchNanoseconds.map { Double($0) / 1e9 }
        let slot = status - 100
        counts.withLock { counts in
            if (0..<Self.statusSlots).contains(slot), routeLabels.indices.contains(routeIndex) {
                counts.byRouteAndStatus[routeIndex * Self.statusSlots + slot] += 1
            } else {
                counts.unusual[routeIndex << 16 | (status & 0xFFFF), default: 0] += 1
            }
            if let seconds { counts.dispatch.observe(seconds) }
        }
    }

    /// The exposition text, with the live gauges.
    func render(gauges: [(name: String, help: String, value: Int)]) -> String {
        let snapshot = counts.withLock { $0 }
        var keyed = snapshot.unusual
        for (index, count) in snapshot.byRouteAndStatus.enumerated() where count > 0 {
            keyed[(index / Self.statusSlots) << 16 | (index % Self.statusSlots + 100), default: 0] += count
        }
        var text = "# HELP remvvm_http_requests_total HTTP requests answered, by route and status.\n"
        text += "# TYPE remvvm_http_requests_total counter\n"
        let rows = keyed.map { key, count in
            (route: routeLabels.indices.contains(key >> 16) ? routeLabels[key >> 16] : "?", status: key & 0xFFFF, count)
        }
        for (route, status, count) in rows.sorted(by: { ($0.route, $0.status) < ($1.route, $1.status) }) {
            text += "remvvm_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)\n"
        }
        for gauge in gauges {
            text += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(gauge.value)\n"
        }
        text += snapshot.dispatch.render(
            name: "remvvm_dispatch_duration_seconds",
            help: "Time from a dispatch request's arrival to its answer being ready.")
        return text
    }
}

/// A fixed-bucket latency histogram.
struct Histogram {
    static let bounds: [Double] = [
        0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]

    private(set) var counts = [Int](repeating: 0, count: Histogram.bounds.count)
    private(set) var total = 0
    private(set) var sum = 0.0

    mutating func observe(_ value: Double) {
        if let bucket = Self.bounds.firstIndex(where: { value <= $0 }) { counts[bucket] += 1 }
        total += 1
        sum += value
    }

    func render(name: String, help: String) -> String {
        var text = "# HELP \(name) \(help)\n# TYPE \(name) histogram\n"
        var cumulative = 0
        for (bound, count) in zip(Self.bounds, counts) {
            cumulative += count
            text += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{le=\"+Inf\"} \(total)\n\(name)_sum \(sum)\n\(name)_count \(total)\n"
        return text
    }
}
