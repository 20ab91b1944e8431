import CoreMetrics
import MicroHTTP
import ReMVVM
import ReMVVMPersistence
import Synchronization

/// The server's metrics, recorded through swift-metrics into the factory its configuration names
/// (``ServerConfiguration/metricsFactory``): requests by route and status, the dispatch latency histogram,
/// refusals by reason, and the gauges.
///
/// Nothing here walks the sessions: counters are bumped as answers go out, and the gauges are set from
/// counts the server keeps as it goes (``StoreServer/updateMetricGauges()``), so a scrape costs the same with
/// one session or 200,000.
final class ServerMetrics: Sendable {
    private static let statusSlots = 500
    private let factory: any MetricsFactory
    /// The route labels, by route index.
    private let routeLabels: [String]
    /// Request counters, made on first use, by `route index * statusSlots + status - 100` (statuses 100...599).
    private let requests: Mutex<[CoreMetrics.Counter?]>
    /// Request counters for any other route or status (rare: never sent by the API), by `route index << 16 | status`.
    private let unusual = Mutex<[Int: CoreMetrics.Counter]>([:])
    private let dispatch: CoreMetrics.Timer
    /// One counter per refusal reason, by ``Refusal`` index: made up front, so each shows 0 until it happens.
    private let refusals: [CoreMetrics.Counter]
    private let expiredIdle: CoreMetrics.Counter
    private let expiredUnused: CoreMetrics.Counter
    let gauges: Gauges
    let storage: Storage
    let topics: Topics

    /// A registry for routes labelled `routeLabels[index]`, recording into `factory`.
    init(routeLabels: [String], factory: any MetricsFactory) {
        self.factory = factory
        self.routeLabels = routeLabels
        requests = Mutex(Array(repeating: nil, count: routeLabels.count * Self.statusSlots))
        dispatch = CoreMetrics.Timer(label: ServerConfiguration.dispatchLatencyMetric, factory: factory)
        refusals = Refusal.allCases.map {
            CoreMetrics.Counter(label: "remvvm_refusals_total", dimensions: [("reason", $0.rawValue)], factory: factory)
        }
        expiredIdle = CoreMetrics.Counter(
            label: "remvvm_sessions_expired_total", dimensions: [("reason", "idle")], factory: factory)
        expiredUnused = CoreMetrics.Counter(
            label: "remvvm_sessions_expired_total", dimensions: [("reason", "unused")], factory: factory)
        gauges = Gauges(factory: factory)
        storage = Storage(factory: factory)
        topics = Topics(factory: factory)
    }

    /// Counts one answered request and, for a dispatch, adds its duration to the latency histogram.
    func record(routeIndex: Int, status: Int, dispatchNanoseconds: Int64? = nil) {
        counter(routeIndex: routeIndex, status: status).increment()
        if let dispatchNanoseconds { dispatch.recordNanoseconds(dispatchNanoseconds) }
    }

    /// Counts one request refused to protect a budget: `remvvm_refusals_total{reason="..."}`.
    func refused(_ reason: Refusal) {
        refusals[reason.index].increment()
    }

    /// Counts the sessions the housekeeper ended: `remvvm_sessions_expired_total{reason="idle"|"unused"}` (unused:
    /// created and never used, ended after ``ServerConfiguration/unusedSessionTTL``).
    func sessionsExpired(idle: Int, unused: Int) {
        if idle > 0 { expiredIdle.increment(by: Int64(idle)) }
        if unused > 0 { expiredUnused.increment(by: Int64(unused)) }
    }

    /// Counts what the transport refused on its own between two scrapes (its counters only grow).
    func addRefusals(_ now: TransportStatistics, since last: TransportStatistics) {
        let grown: [(Refusal, Int)] = [
            (.connectionsPerAddress, now.connectionsOverClientLimit - last.connectionsOverClientLimit),
            (.headDeadline, now.requestHeadTimeouts - last.requestHeadTimeouts),
            (.bodyDeadline, now.requestBodyTimeouts - last.requestBodyTimeouts),
            (.bodyTooLarge, now.bodiesTooLarge - last.bodiesTooLarge),
            (
                .streamBudget,
                now.streamsEndedOverBudget + now.streamsRefusedOverBudget - last.streamsEndedOverBudget
                    - last.streamsRefusedOverBudget
            ),
        ]
        for (reason, count) in grown where count > 0 { refusals[reason.index].increment(by: Int64(count)) }
    }

    private func counter(routeIndex: Int, status: Int) -> CoreMetrics.Counter {
        let slot = status - 100
        guard (0..<Self.statusSlots).contains(slot), routeLabels.indices.contains(routeIndex) else {
            return unusual.withLock { unusual in
                let key = routeIndex << 16 | (status & 0xFFFF)
                if let counter = unusual[key] { return counter }
                let counter = makeCounter(routeIndex: routeIndex, status: status)
                unusual[key] = counter
                return counter
            }
        }
        let index = routeIndex * Self.statusSlots + slot
        if let counter = requests.withLock({ $0[index] }) { return counter }
        // Made outside the lock (the factory takes its own); a race makes the same counter twice, which the
        // factory hands back as one (same name and labels).
        let counter = makeCounter(routeIndex: routeIndex, status: status)
        requests.withLock { $0[index] = counter }
        return counter
    }

    private func makeCounter(routeIndex: Int, status: Int) -> CoreMetrics.Counter {
        let route = routeLabels.indices.contains(routeIndex) ? routeLabels[routeIndex] : "?"
        return CoreMetrics.Counter(
            label: "remvvm_http_requests_total", dimensions: [("route", route), ("status", "\(status)")],
            factory: factory)
    }
}

extension ServerMetrics {
    /// The gauges, each set from a count the server keeps as it goes (never by walking the sessions).
    struct Gauges: Sendable {
        let sessions: CoreMetrics.Gauge
        let parkedPolls: CoreMetrics.Gauge
        let eventStreams: CoreMetrics.Gauge
        let runningEffects: CoreMetrics.Gauge
        let openConnections: CoreMetrics.Gauge
        let suspendedConnections: CoreMetrics.Gauge

        init(factory: any MetricsFactory) {
            func gauge(_ label: String) -> CoreMetrics.Gauge { CoreMetrics.Gauge(label: label, factory: factory) }
            sessions = gauge("remvvm_sessions")
            parkedPolls = gauge("remvvm_parked_polls")
            eventStreams = gauge("remvvm_event_streams")
            runningEffects = gauge("remvvm_running_effects")
            openConnections = gauge("remvvm_open_connections")
            suspendedConnections = gauge("remvvm_suspended_connections")
        }
    }
}

extension ServerMetrics {
    /// What the durable storage's writer has done (``WriterStatistics``), as counters.
    struct Storage: Sendable {
        let transactions: CoreMetrics.Counter
        let commits: CoreMetrics.Counter
        let snapshots: CoreMetrics.Counter
        let failures: CoreMetrics.Counter

        init(factory: any MetricsFactory) {
            func counter(_ label: String) -> CoreMetrics.Counter { CoreMetrics.Counter(label: label, factory: factory) }
            transactions = counter("remvvm_storage_transactions_total")
            commits = counter("remvvm_storage_commits_total")
            snapshots = counter("remvvm_storage_snapshots_total")
            failures = counter("remvvm_storage_failures_total")
        }

        /// Adds what the writer did between two readings of its statistics.
        func add(_ now: WriterStatistics, since last: WriterStatistics) {
            transactions.increment(by: max(now.transactions - last.transactions, 0))
            commits.increment(by: max(now.commits - last.commits, 0))
            snapshots.increment(by: max(now.snapshots - last.snapshots, 0))
            failures.increment(by: max(now.failures - last.failures, 0))
        }
    }
}

extension ServerMetrics {
    /// What the app's topic hub has done (``TopicStatistics``), as counters.
    struct Topics: Sendable {
        let published: CoreMetrics.Counter
        let delivered: CoreMetrics.Counter
        let passes: CoreMetrics.Counter
        let deferredPasses: CoreMetrics.Counter
        let gaps: CoreMetrics.Counter
        let wakeUps: CoreMetrics.Counter
        let readFailures: CoreMetrics.Counter

        init(factory: any MetricsFactory) {
            func counter(_ label: String) -> CoreMetrics.Counter { CoreMetrics.Counter(label: label, factory: factory) }
            published = counter("remvvm_topic_published_total")
            delivered = counter("remvvm_topic_delivered_total")
            passes = counter("remvvm_topic_passes_total")
            deferredPasses = counter("remvvm_topic_deferred_passes_total")
            gaps = counter("remvvm_topic_gaps_total")
            wakeUps = counter("remvvm_topic_wake_ups_total")
            readFailures = counter("remvvm_topic_read_failures_total")
        }

        /// Adds what the hub did between two readings of its statistics (from zero for the first).
        func add(_ now: TopicStatistics, since last: TopicStatistics?) {
            func grow(_ counter: CoreMetrics.Counter, _ path: KeyPath<TopicStatistics, Int>) {
                counter.increment(by: max(now[keyPath: path] - (last?[keyPath: path] ?? 0), 0))
            }
            grow(published, \.published)
            grow(delivered, \.delivered)
            grow(passes, \.passes)
            grow(deferredPasses, \.deferredPasses)
            grow(gaps, \.gaps)
            grow(wakeUps, \.wakeUps)
            grow(readFailures, \.readFailures)
        }
    }
}
