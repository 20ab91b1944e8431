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
        self.init(
            actions: definition.actions,
            makeStore: { record, _ in AnyProjectedStore(definition.makeStore(identity: record.identity)) },
            durability: nil,
            configuration: configuration, logger: logger, authentication: authentication, routes: routes)
    }

    /// A server whose stores are made per session identity, kept durably when `durability` is set; its long-poll
    /// timeouts and housekeeping go by `clock`.
    init(
        actions: ActionRegistry,
        makeStore: @escaping @Sendable (SessionRecord, DurableVersion) -> any ProjectedStore,
        durability: (any SessionPersistence)?,
        configuration: ServerConfiguration,
        logger: Logger,
        clock: any ServerClock = SystemServerClock(),
        authentication: Authentication? = nil,
        routes: [AppRoute] = []
    ) {
        self.logger = logger
        let transportBox = TransportBox()
        api = API(
            configuration: configuration,
            actions: actions,
            makeStore: makeStore,
            durability: durability,
            logger: logger,
            clock: clock,
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

    /// How many times the housekeeping thread has woken since ``start()`` (for tests: it sleeps while nothing is
    /// due).
    var housekeepingRounds: Int { housekeeper.withLock { $0?.rounds ?? 0 } }

    /// Starts listening, and the housekeeping that times out long-polls, sends heartbeats and expires
    /// idle sessions; returns once the server listens.
    ///
    /// ``run()`` is the usual way: it starts, waits and stops. Call `start()` yourself to know the port before
    /// the service runs (``run()`` then only waits and stops). A server serves once: after ``stop()`` it
    /// cannot start again.
    public func start() throws(StoreServerError) {
        restoreSessions()
        do {
            try transport.start()
        } catch {
            throw StoreServerError(error)
        }
        let keeper = Housekeeper(api: api)
        guard keeper.start() else {
            logger.error("could not start the housekeeping thread (long-poll timeouts, heartbeats, expiry)")
            transport.stop()
            throw StoreServerError.cannotStart.with("cannot start the housekeeping thread")
        }
        housekeeper.withLock { $0 = keeper }
    }

    /// Whether ``start()`` has run and ``stop()`` has not.
    var isServing: Bool { housekeeper.withLock { $0 != nil } }

    /// Stops: takes no session and no connection any more, serves the open connections for at most
    /// ``ServerConfiguration/drainPeriod`` (each answer closing its connection), answers parked long-polls with
    /// their current cursor, ends event streams, then closes every connection. Idempotent.
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

    func gauges() -> [(name: String, help: String, value: Int)] {
        guard let server else { return [] }
        return [
            ("remvvm_open_connections", "Open HTTP connections.", server.openConnections),
            ("remvvm_suspended_connections", "Connections parked without a thread.", server.suspendedConnections),
        ]
    }
}
