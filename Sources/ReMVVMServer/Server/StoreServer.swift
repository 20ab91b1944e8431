import Foundation
import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import Synchronization

/// Serves an app over HTTP: one store per client session, actions in, view-model projections
/// out, long-poll and Server-Sent Events for changes, and the web client from `public/`.
///
/// It is a `Service` of swift-service-lifecycle: ``run()`` serves until its task is cancelled or its
/// `ServiceGroup` shuts down gracefully (on SIGTERM or SIGINT, say), then stops as ``stop()`` does.
///
/// ```swift
/// let server = StoreServer(ExampleApp.definition(), configuration: configuration)
/// try await server.runService()  // Until SIGTERM or SIGINT.
/// ```
public final class StoreServer: Sendable {
    let api: API
    private let transport: HTTPServer
    /// Whether the stored sessions were restored (once, at the first start).
    let restored = Atomic<Bool>(false)
    private let housekeeper = Mutex<Housekeeper?>(nil)
    /// The threads that run what the stores and the topic hub hand off: large long-poll fan-outs and topic
    /// delivery passes. Started and stopped with the server.
    let pool: FanOutPool
    let logger: Logger
    /// Deletes expired sessions from durable storage while ``run()`` serves; nil without durability.
    let tidy: SessionTidy?

    /// Prepares a server for the app `definition`, with sessions in memory only; nothing
    /// listens until ``start()``.
    ///
    /// - Parameters:
    ///   - authentication: The app's sign-in: each session belongs to the identity it names (see
    ///     ``Authentication``); nil for anonymous sessions.
    ///   - routes: The app's own routes, beside the v1 API (see ``AppRoute``).
    public convenience init<State: Sendable>(
        _ definition: StoreDefinition<State>,
        configuration: ServerConfiguration = ServerConfiguration(),
        logger: Logger = Logger(label: "remvvm.server"),
        authentication: Authentication? = nil,
        routes: [AppRoute] = []
    ) {
        let pool = FanOutPool(threads: configuration.threads)
        let definition = Self.scheduling(definition, on: pool)
        self.init(
            actions: definition.actions,
            makeStore: { record, _ in AnyProjectedStore(definition.makeStore(identity: record.identity)) },
            durability: nil,
            configuration: configuration, logger: logger, topics: definition.topics, pool: pool,
            authentication: authentication, routes: routes)
    }

    /// `definition` with its stores' fan-outs and its hub's delivery passes run by `pool`, and the hub this
    /// server owns: the definition's own when it brings one, else a new one (not a default argument, which a
    /// definition computed at each use would make anew every time).
    static func scheduling<State>(_ definition: StoreDefinition<State>, on pool: FanOutPool) -> StoreDefinition<State> {
        var definition = definition
        definition.configuration.scheduler = pool
        let topics = definition.topics ?? TopicHub()
        topics.schedulePasses(on: pool)
        definition.topics = topics
        return definition
    }

    /// A server whose stores are made per session identity, kept durably when `durability` is set; its long-poll
    /// timeouts and housekeeping go by `clock`; `topics`, the app's hub, is counted in the metrics and tidied. The
    /// stores `makeStore` makes hand their fan-outs to `pool` when their definition went through
    /// ``scheduling(_:on:)``; the server starts and stops the pool.
    init(
        actions: ActionRegistry,
        makeStore: @escaping @Sendable (SessionRecord, DurableVersion) -> any ProjectedStore,
        durability: (any SessionPersistence)?,
        configuration: ServerConfiguration,
        logger: Logger,
        clock: any ServerClock = SystemServerClock(),
        topics: TopicHub? = nil,
        pool: FanOutPool? = nil,
        authentication: Authentication? = nil,
        routes: [AppRoute] = []
    ) {
        self.logger = logger
        self.pool = pool ?? FanOutPool(threads: configuration.threads)
        let transportBox = TransportBox()
        api = API(
            configuration: configuration,
            actions: actions,
            makeStore: makeStore,
            durability: durability,
            logger: logger,
            clock: clock,
            topics: topics,
            authentication: authentication,
            routes: routes,
            transportGauges: { transportBox.gauges() }
        )
        var transportConfiguration = configuration.transport
        transportConfiguration.diagnostics = { message in logger.warning("\(message)") }
        transport = HTTPServer(configuration: transportConfiguration, handler: api)
        transportBox.server = transport
        let api = self.api
        tidy = durability.map { durability in
            SessionTidy(
                durability: durability, interval: configuration.tidyInterval, batchSize: configuration.tidyBatchSize,
                logger: logger, now: { [weak api] in api?.wallNow ?? Date() }
            ) { [weak api] ids in api?.tidied(ids) }
        }
    }

    /// The port the server listens on (after ``start()``).
    public var port: UInt16 { transport.port }

    /// The CPU each HTTP worker is pinned to (``TransportTuning/pinsWorkers``); empty when not pinned.
    package var workerCPUs: [Int] { transport.workerCPUs }

    /// How the HTTP workers send the answers of one pass: `unbatched` (each as it is given), `batched`
    /// (together when the pass ends, one `setsockopt` each) or `batched+io_uring` (together, in one system
    /// call); see ``TransportTuning``.
    package var answerRelease: String {
        guard transport.batchesAnswers else { return "unbatched" }
        return transport.releasesAnswersInOneCall ? "batched+io_uring" : "batched"
    }

    /// How many sessions are live.
    public var sessionCount: Int { api.sessions.count }

    /// The hub of this server's sessions: publish to it from outside any session (a service, an admin task);
    /// an ``AppRoute`` finds it in its request (``AppRequest/topics``).
    public var topics: TopicHub { api.topics }

    /// Sets the gauges (sessions, parked long-polls, event streams, running effects, connections) and the storage
    /// counters in ``ServerConfiguration/metricsFactory`` from counts the server keeps as it runs, in O(1)
    /// whatever the number of sessions. The API port's `/metrics` calls it before each scrape; call it before
    /// serving the registry anywhere else (the executable's metrics listener does), or on a timer for a backend
    /// that pushes.
    public func updateMetricGauges() {
        api.updateMetricGauges()
    }

    /// How many times the housekeeping thread has woken since ``start()`` (for tests: it sleeps while nothing is
    /// due).
    var housekeepingRounds: Int { housekeeper.withLock { $0?.rounds ?? 0 } }

    /// Starts listening, and the housekeeping that times out long-polls, sends heartbeats and expires
    /// idle sessions; returns once the server listens, having logged where sessions live (memory, a file, a
    /// database).
    ///
    /// ``run()`` is the usual way: it starts, waits and stops. Call `start()` yourself to know the port before
    /// the service runs (``run()`` then only waits and stops). A server serves once: after ``stop()`` it
    /// cannot start again.
    public func start() throws(StoreServerError) {
        let maxViewBytes = api.configuration.maxViewBytes
        guard (1...ServerConfiguration.maxViewBytesLimit).contains(maxViewBytes) else {
            throw StoreServerError.invalidConfiguration.with(
                "maxViewBytes is \(maxViewBytes); it must be 1 to \(ServerConfiguration.maxViewBytesLimit)")
        }
        restoreSessions()
        do {
            try transport.start()
        } catch {
            throw StoreServerError(error)
        }
        // Until it runs, a fan-out is declined and runs on the thread that caused it.
        guard pool.start() else {
            logger.error("could not start the fan-out threads (large long-poll wake-ups, topic deliveries)")
            transport.stop()
            throw StoreServerError.cannotStart.with("cannot start the fan-out threads")
        }
        let keeper = Housekeeper(api: api)
        guard keeper.start() else {
            logger.error("could not start the housekeeping thread (long-poll timeouts, heartbeats, expiry)")
            transport.stop()
            pool.stop()
            throw StoreServerError.cannotStart.with("cannot start the housekeeping thread")
        }
        housekeeper.withLock { $0 = keeper }
        logger.info("\(sessionsLocation)")
    }

    /// Where sessions live, for the start line: an app that passed no storage learns that they end with the process.
    var sessionsLocation: String {
        guard let durability = api.durability else {
            return "sessions live in memory only and end with the process; "
                + "StoreServer(_:configuration:storage:) keeps them (SQLiteSessionStorage, PostgresSessionStorage)"
        }
        return "sessions live in \(durability.location)"
    }

    /// Whether ``start()`` has run and ``stop()`` has not.
    var isServing: Bool { housekeeper.withLock { $0 != nil } }

    /// Stops: takes no session and no connection any more, serves the open connections for at most
    /// ``ServerConfiguration/drainPeriod`` (each answer closing its connection), answers parked long-polls with
    /// their current cursor, ends event streams, runs the fan-outs still queued and stops their threads, then
    /// closes every connection. Idempotent.
    public func stop() {
        let keeper = housekeeper.withLock { keeper in
            defer { keeper = nil }
            return keeper
        }
        // Drains: no session is taken (loaded or created) any more; the held ones are flushed and released below.
        api.draining.store(true, ordering: .relaxed)
        // New connections are refused (a proxy sends them elsewhere, nothing sent); requests on open ones are
        // answered, each answer closing its connection, so none is cut with a request on it.
        if keeper != nil { transport.drain(grace: api.configuration.drainPeriod) }
        // The app's handlers still running (sign-ins, routes) are cancelled: their requests get 503 draining.
        api.handlers.cancelAll()
        keeper?.stop()
        api.timer.fireAll()
        api.streams.endAll(reason: "shutdown")
        waitForDurableAnswers()
        // The fan-outs queued so far still reach their connections; later ones run on their callers' threads.
        pool.stop()
        transport.stop()
        closeDurableSessions()
        logger.info("server stopped")
    }
}

/// Lets `/metrics` read the transport's gauges, which exist only once the transport does.
///
/// It holds the transport weakly: the transport holds the API as its handler and the API holds this box,
/// so a strong reference would keep the whole server alive after its last user let go of it.
private final class TransportBox: Sendable {
    private struct WeakServer {
        weak var server: HTTPServer?
    }

    private let box = Mutex(WeakServer())

    var server: HTTPServer? {
        get { box.withLock { $0.server } }
        set { box.withLock { $0.server = newValue } }
    }

    /// Open HTTP connections, those parked without a thread, and what the transport refused on its own; zeros
    /// before the transport exists.
    func gauges() -> TransportGauges {
        guard let server else { return TransportGauges() }
        return TransportGauges(
            open: server.openConnections, suspended: server.suspendedConnections, statistics: server.statistics)
    }
}
