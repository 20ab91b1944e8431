import CoreMetrics
import Foundation
import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMPersistence
import Synchronization

/// The v1 API: routes each request to its endpoint. Runs on the transport's worker threads
/// and never blocks them: a request that must wait parks its connection instead.
final class API: HTTPHandler {
    let configuration: ServerConfiguration
    let sessions: SessionRegistry
    let actions: ActionRegistry
    let metrics: ServerMetrics
    /// The app's sign-in; nil for anonymous sessions.
    let authentication: Authentication?
    /// The app's own routes, tried after the v1 API's.
    let appRoutes: AppRouter
    /// Every route's label, by index: the API's (``Route/labels``), then the app routes' patterns.
    let routeLabels: [String]
    /// The tasks running the app's async code (authenticators, app routes) for parked requests.
    let handlers: HandlerTasks
    /// Reads a request's client address and scheme, believing only the trusted proxies.
    let clientAddress: ClientAddress
    /// Session creations per client address; nil when ``ServerConfiguration/sessionCreationBurst`` is 0.
    let creationBudget: AddressBudget?
    let timer: DeadlineTimer
    let streams = EventStreams()
    let files: StaticFiles
    let logger: Logger
    /// Whether `logger` writes a debug line per answer (its level is set once, at start).
    let logsAnswers: Bool
    /// Reads the transport's connections and refusals for the metrics (set once the transport exists).
    let transportGauges: @Sendable () -> TransportGauges
    /// The storage writer's counts at the last gauge update, so its counters grow by the difference.
    private let writerCounts = Mutex(WriterStatistics())
    /// The server's topic hub (the app definition's when it brings one): the metrics count its statistics, the
    /// housekeeper tidies it (``tidyTopics()``) and app routes find it in their requests.
    let topics: TopicHub
    /// The hub's counts at the last gauge update.
    private let topicCounts = Mutex<TopicStatistics?>(nil)
    /// The transport's refusals at the last gauge update.
    private let transportCounts = Mutex(TransportStatistics())
    /// Where sessions are kept durably; nil keeps them in memory only.
    let durability: (any SessionPersistence)?
    /// Loads the sessions a shared storage holds and this node does not; nil unless the storage is shared.
    let loader: SessionLoader?
    /// Set when the server stops: it takes no session any more (no loads, no new sessions).
    let draining = Atomic<Bool>(false)
    convenience init(
        configuration: ServerConfiguration,
        actions: ActionRegistry,
        makeStore: @escaping @Sendable () -> any ProjectedStore,
        logger: Logger,
        transportGauges: @escaping @Sendable () -> TransportGauges
    ) {
        self.init(
            configuration: configuration, actions: actions, makeStore: { _, _ in makeStore() }, durability: nil,
            logger: logger, transportGauges: transportGauges)
    }

    /// An API whose stores are made per session identity, kept durably when `durability` is set, with the app's
    /// topic hub, sign-in and routes.
    init(
        configuration: ServerConfiguration,
        actions: ActionRegistry,
        makeStore: @escaping @Sendable (SessionRecord, DurableVersion) -> any ProjectedStore,
        durability: (any SessionPersistence)?,
        logger: Logger,
        clock: any ServerClock = SystemServerClock(),
        topics: TopicHub? = nil,
        authentication: Authentication? = nil,
        routes: [AppRoute] = [],
        transportGauges: @escaping @Sendable () -> TransportGauges
    ) {
        self.topics = topics ?? TopicHub()
        self.authentication = authentication
        appRoutes = AppRouter(routes)
        routeLabels = Route.labels + appRoutes.labels
        handlers = HandlerTasks(limit: configuration.maxRunningHandlers)
        timer = DeadlineTimer(clock: clock)
        metrics = ServerMetrics(
            routeLabels: routeLabels, factory: configuration.metricsFactory ?? NOOPMetricsHandler.instance)
        self.configuration = configuration
        self.actions = actions
        self.logger = logger
        logsAnswers = logger.logLevel <= .debug
        self.transportGauges = transportGauges
        self.durability = durability
        clientAddress = ClientAddress(trustedProxies: configuration.trustedProxies)
        creationBudget =
            configuration.sessionCreationBurst > 0
            ? AddressBudget(
                burst: configuration.sessionCreationBurst, rate: configuration.sessionCreationRate,
                capacity: configuration.sessionCreationAddresses) : nil
        let sessions = SessionRegistry(
            limit: configuration.maxSessions,
            idempotencyLimit: configuration.idempotencyKeysPerSession,
            ttl: configuration.sessionTTL,
            unusedTTL: configuration.unusedSessionTTL,
            makeStore: makeStore,
            onEnd: { session in durability?.remove(session: session.id) },
            storedExpiry: durability.map { durability in
                StoredExpiry(ttl: max(MonotonicClock.nanoseconds(of: configuration.sessionTTL), 0)) { id, expires in
                    durability.touch(session: id, expires: expires)
                }
            }
        )
        self.sessions = sessions
        files = StaticFiles(root: configuration.publicDirectory)
        if let durability, durability.isShared {
            let limits = SessionLoader.Limits(
                lanes: configuration.sessionLoaders, pending: configuration.maxPendingLoads,
                unknownTTL: configuration.unknownSessionCacheTTL)
            let timer = self.timer
            loader = SessionLoader(
                durability: durability, sessions: sessions, idempotencyLimit: configuration.idempotencyKeysPerSession,
                limits: limits, logger: logger, now: { StoredExpiry.date(ofMonotonic: timer.clock.now()) })
        } else {
            loader = nil
        }
    }

    /// Drops this node's copies of sessions another node took over (without deleting them from
    /// storage): parked long-polls are answered with their cursors and event streams end, so their
    /// clients come back and reach the new owner.
    func evict(_ ids: [String], forget: Bool) {
        for id in ids {
            guard sessions.evict(id: id) != nil else { continue }
            if forget { durability?.forget(session: id) }
            logger.info(
                "session taken over by another node; this node's copy dropped", metadata: ["session.id": "\(id)"])
        }
    }

    func handle(_ request: consuming HTTPRequest, responder: Responder) {
        var route = Route(path: request.path)
        // The app's routes only where the API has none: the API's own routes pay nothing for them.
        var appMatch: AppRouter.Match?
        if !appRoutes.isEmpty, route == .unknownAPI || route == .staticFile,
            let match = appRoutes.match(method: request.method, path: request.path)
        {
            switch match {
            case .route(_, _, let label), .wrongMethod(_, let label): route = .app(label: Route.labels.count + label)
            }
            appMatch = match
        }
        let exchange = Exchange(
            request: request, responder: responder, route: routeLabels[route.index], routeIndex: route.index,
            isAPI: route != .staticFile, started: MonotonicClock.nanoseconds(), metrics: metrics, logger: logger,
            logsAnswers: logsAnswers)
        switch route {
        case .health: health(exchange)
        case .metrics: exposeMetrics(exchange)
        case .sessions: createSession(exchange)
        case .session(let id):
            if let session = session(id, exchange, { $0.sessionResource($1, $2) }) {
                sessionResource(session, exchange)
            }
        case .actions(let id):
            if let session = session(id, exchange, { $0.dispatch($1, $2) }) { dispatch(session, exchange) }
        case .poll(let id): if let session = session(id, exchange, { $0.poll($1, $2) }) { poll(session, exchange) }
        case .events(let id): events(id, exchange)
        case .unknownAPI:
            exchange.send(.notFound("no API route \(exchange.request.method) \(exchange.request.path)"))
        case .staticFile: serveFile(exchange)
        case .app: if let appMatch { serveAppRoute(appMatch, exchange) }
        }
    }

    /// The request's session, found by id and token, or nil once the request is answered: a wrong token and an
    /// unknown id get the same 404, so nobody can probe which sessions exist; no credentials at all get 401.
    ///
    /// Returned rather than handed to a closure: a closure capturing the exchange copied it, request and all, on
    /// every session request. `then` (a closure that captures nothing, so costs nothing) serves the request
    /// only when its session must first be loaded from a shared storage: the request parks, and goes on once
    /// the session is in service.
    private func session(
        _ id: SessionKey?, _ exchange: Exchange, _ then: @escaping @Sendable (API, Session, Exchange) -> Void
    ) -> Session? {
        let credentials = Credentials(exchange.request)
        guard let session = sessions.find(id: id, token: credentials?.token) else {
            guard let loader, let id, let token = credentials?.token else {
                exchange.send(Self.notFound(exchange.request, credentials: credentials))
                return nil
            }
            guard !draining.load(ordering: .relaxed) else {
                exchange.send(.draining)
                return nil
            }
            loader.load(id: id, token: token) { [self] outcome in
                switch outcome {
                case .loaded(let session):
                    guard admits(session, exchange, fromCookie: credentials?.fromCookie == true) else { return }
                    authenticated(session, exchange, then)
                case .unknown: exchange.send(.sessionNotFound)
                case .unavailable(let error): exchange.send(Problem.storageUnavailable(error))
                case .busy: exchange.send(Problem.loadingBusy)
                }
            }
            return nil
        }
        guard admits(session, exchange, fromCookie: credentials?.fromCookie == true) else { return nil }
        // With the app's sign-in on every request, the request parks while it runs and goes on through `then`.
        if let authentication, authentication.everyRequest {
            authenticated(session, exchange, then)
            return nil
        }
        return session
    }

    /// The answer for a session that is not found: 401 when the request carries no credentials at all, else 404.
    static func notFound(_ request: borrowing HTTPRequest, credentials: Credentials?) -> Problem {
        credentials == nil && Credentials.areAbsent(in: request) ? .missingCredentials() : .sessionNotFound
    }

    /// Refuses a cookie-authenticated change from another site; else marks the session as used.
    private func admits(_ session: Session, _ exchange: Exchange, fromCookie: Bool) -> Bool {
        if fromCookie, exchange.request.method != "GET", exchange.request.method != "HEAD",
            exchange.request.isCrossSite
        {
            exchange.send(Problem.crossSite())
            return false
        }
        session.touch(at: exchange.started)
        return true
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

    /// `GET /metrics`: the exposition the configuration names, once the gauges are set; 404 when there is none
    /// (the metrics are served on a listener of their own, or not at all).
    private func exposeMetrics(_ exchange: Exchange) {
        guard let exposition = configuration.metricsExposition else {
            exchange.send(.notFound("no API route \(exchange.request.method) \(exchange.request.path)"))
            return
        }
        guard isRead(exchange) else { return }
        updateMetricGauges()
        exchange.send(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: .bytes(exposition())))
    }

    /// Sets the gauges from counts kept as the server runs: each an O(1) read, whatever the number of sessions.
    func updateMetricGauges() {
        let gauges = metrics.gauges
        gauges.sessions.record(sessions.count)
        gauges.parkedPolls.record(timer.count)
        gauges.eventStreams.record(streams.count)
        gauges.runningEffects.record(AnyProjectedStore.runningEffectsInProcess)
        let transport = transportGauges()
        gauges.openConnections.record(transport.open)
        gauges.suspendedConnections.record(transport.suspended)
        metrics.addRefusals(transport.statistics, since: Self.exchange(transportCounts, for: transport.statistics))
        if let statistics = durability?.writerStatistics {
            metrics.storage.add(statistics, since: Self.exchange(writerCounts, for: statistics))
        }
        let statistics = topics.statistics
        metrics.topics.add(statistics, since: Self.exchange(topicCounts, for: statistics))
    }

    /// Stores `new` as the last reading and returns the one it replaces: counters grow by the difference.
    private static func exchange<Reading: Sendable>(_ last: borrowing Mutex<Reading>, for new: Reading) -> Reading {
        last.withLock { last in
            defer { last = new }
            return last
        }
    }

    /// The tidy deleted these sessions from storage: a copy held here (which its stored expiry should have kept
    /// from that) ends too, so its token is unknown here as everywhere.
    func tidied(_ ids: [String]) {
        for id in ids where sessions.remove(id: id) != nil {
            logger.warning(
                "a session held here was deleted from storage as expired; ended", metadata: ["session.id": "\(id)"])
        }
    }

    /// Now on the wall clock, as the housekeeping's clock has it: what stored expiries are compared with.
    var wallNow: Date { StoredExpiry.date(ofMonotonic: timer.clock.now()) }

    /// Expires the sessions idle at `now` (the housekeeper's clock); called by the server's housekeeper.
    func expireIdleSessions(now: Int64) {
        let (expired, unused) = sessions.expire(now: now)
        metrics.sessionsExpired(idle: expired - unused, unused: unused)
        if expired > 0 {
            logger.info(
                "expired idle sessions", metadata: ["sessions.expired": "\(expired)", "sessions.unused": "\(unused)"])
        }
    }

    /// Drops the topics nobody used for their retention, from memory and from the topic log; called by the
    /// housekeeper, so a log's round trip holds up neither a request nor a topic.
    func tidyTopics() {
        do {
            let dropped = try topics.tidy()
            if dropped > 0 { logger.debug("dropped idle topics", metadata: ["topics.dropped": "\(dropped)"]) }
        } catch {
            logger.warning(
                "cannot forget idle topics in storage; tried again at the next round", metadata: ["error": "\(error)"])
        }
    }
}
