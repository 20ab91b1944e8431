import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMPersistence

/// The v1 API: routes each request to its endpoint. Runs on the transport's worker threads
/// and never blocks them: a request that must wait parks its connection instead.
final class API: HTTPHandler {
    let configuration: ServerConfiguration
    let sessions: SessionRegistry
    let actions: ActionRegistry
    let metrics = ServerMetrics(routeLabels: Route.labels)
    let timer: DeadlineTimer
    let streams = EventStreams()
    let files: StaticFiles
    let logger: Logger
    /// Whether `logger` writes a debug line per answer (its level is set once, at start).
    let logsAnswers: Bool
    /// Reads the transport's gauges for `/metrics` (set once the transport exists).
    let transportGauges: @Sendable () -> [(name: String, help: String, value: Int)]
    /// Where sessions are kept durably; nil keeps them in memory only.
    let durability: (any SessionPersistence)?

    convenience init(
        configuration: ServerConfiguration,
        actions: ActionRegistry,
        makeStore: @escaping @Sendable () -> any ProjectedStore,
        logger: Logger,
        transportGauges: @escaping @Sendable () -> [(name: String, help: String, value: Int)]
    ) {
        self.init(
            configuration: configuration, actions: actions, makeStore: { _ in makeStore() }, durability: nil,
            logger: logger, transportGauges: transportGauges)
    }

    /// An API whose stores are made per session identity, and kept durably when `durability` is set.
    init(
        configuration: ServerConfiguration,
        actions: ActionRegistry,
        makeStore: @escaping @Sendable (SessionRecord) -> any ProjectedStore,
        durability: (any SessionPersistence)?,
        logger: Logger,
        clock: any ServerClock = SystemServerClock(),
        transportGauges: @escaping @Sendable () -> [(name: String, help: String, value: Int)]
    ) {
        timer = DeadlineTimer(clock: clock)
        self.configuration = configuration
        self.actions = actions
        self.logger = logger
        logsAnswers = logger.logLevel <= .debug
        self.transportGauges = transportGauges
        self.durability = durability
        sessions = SessionRegistry(
            limit: configuration.maxSessions,
            idempotencyLimit: configuration.idempotencyKeysPerSession,
            ttl: configuration.sessionTTL,
            makeStore: makeStore,
            onEnd: { session in durability?.remove(session: session.id) }
        )
        files = StaticFiles(root: configuration.publicDirectory)
    }

    func handle(_ request: consuming HTTPRequest, responder: Responder) {
        let route = Route(path: request.path)
        let exchange = Exchange(
            request: request, responder: responder, route: route.label, routeIndex: route.index,
            isAPI: route != .staticFile, started: MonotonicClock.nanoseconds(), metrics: metrics, logger: logger,
            logsAnswers: logsAnswers)
        switch route {
        case .health: health(exchange)
        case .metrics: exposeMetrics(exchange)
        case .sessions: createSession(exchange)
        case .session(let id): if let session = session(id, exchange) { sessionResource(session, exchange) }
        case .actions(let id): if let session = session(id, exchange) { dispatch(session, exchange) }
        case .poll(let id): if let session = session(id, exchange) { poll(session, exchange) }
        case .events(let id): events(id, exchange)
        case .unknownAPI:
            exchange.send(.notFound("no API route \(exchange.request.method) \(exchange.request.path)"))
        case .staticFile: serveFile(exchange)
        }
    }

    /// The request's session, found by id and token, or nil once the request is answered: a wrong token and an
    /// unknown id get the same 404, so nobody can probe which sessions exist.
    ///
    /// Returned rather than handed to a closure: a closure capturing the exchange copied it, request and all, on
    /// every session request.
    private func session(_ id: SessionKey?, _ exchange: Exchange) -> Session? {
        let credentials = Credentials(exchange.request)
        guard let session = sessions.find(id: id, token: credentials?.token) else {
            exchange.send(.sessionNotFound)
            return nil
        }
        if credentials?.fromCookie == true, exchange.request.method != "GET", exchange.request.method != "HEAD",
            exchange.request.isCrossSite
        {
            exchange.send(Problem.crossSite())
            return nil
        }
        session.touch(at: exchange.started)
        return session
    }

    private func health(_ exchange: Exchange) {
        guard isRead(exchange) else { return }
        exchange.send(.json(200, ["status": "ok", "sessions": .int(Int64(sessions.count))]))
    }

    /// Answers 405 to anything but `GET` and `HEAD`; true when the request may go on.
    private func isRead(_ exchange: Exchange) -> Bool {
        let method = exchange.request.method
        guard method == "GET" || method == "HEAD" else {
            exchange.send(.methodNotAllowed(method, allowed: ["GET", "HEAD"]))
            return false
        }
        return true
    }

    private func exposeMetrics(_ exchange: Exchange) {
        guard isRead(exchange) else { return }
        let all = sessions.all
        var gauges: [(name: String, help: String, value: Int)] = [
            ("remvvm_sessions", "Live sessions.", all.count),
            ("remvvm_parked_polls", "Long-polls waiting for a change.", timer.count),
            ("remvvm_event_streams", "Open Server-Sent Events streams.", streams.count),
            ("remvvm_running_effects", "Middleware effects running.", all.reduce(0) { $0 + $1.store.runningEffects }),
        ]
        gauges += transportGauges()
        let text = metrics.render(gauges: gauges)
        exchange.send(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: .bytes(Array(text.utf8))))
    }

    /// Expires the sessions idle at `now` (the housekeeper's clock); called by the server's housekeeper.
    func expireIdleSessions(now: Int64) {
        let expired = sessions.expire(now: now)
        if expired > 0 { logger.info("expired idle sessions", metadata: ["sessions.expired": "\(expired)"]) }
    }
}
