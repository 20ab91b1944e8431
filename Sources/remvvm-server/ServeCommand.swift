import ArgumentParser
import ExampleApp
import Foundation
import Logging
import MicroHTTP
import Prometheus
import ReMVVM
import ReMVVMServer
import ServiceLifecycle
import UnixSignals

/// `remvvm-server`: runs the example app. Every option can also come from an environment
/// variable (`--port` from `REMVVM_PORT`, `--public-dir` from `REMVVM_PUBLIC_DIR`, ...);
/// a flag wins over the environment, which wins over the default.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remvvm-server",
        abstract: "Serve the ReMVVM example app: one store per client session over HTTP.",
        discussion: """
            Each option can also be set with the environment variable shown, e.g. REMVVM_PORT=9000. \
            `remvvm-server verify-upgrade --help`: check this build against the stored sessions before a deploy.
            """
    )

    @Option(help: "Address to listen on (REMVVM_HOST).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (REMVVM_PORT).") var port: UInt16?
    @Option(name: .customLong("public-dir"), help: "Folder served at / (REMVVM_PUBLIC_DIR).") var publicDir: String?
    @Option(help: "HTTP worker threads; default one per CPU (REMVVM_THREADS).") var threads: Int?
    @Option(name: .customLong("connection-limit"), help: "Open connections in total (REMVVM_CONNECTION_LIMIT).")
    var connectionLimit: Int?
    @Option(
        name: .customLong("connections-per-client"),
        help: "Open connections per client address, 0 = no limit; default 256 (REMVVM_CONNECTIONS_PER_CLIENT).")
    var connectionsPerClient: Int?
    @Option(
        name: .customLong("trusted-proxies"),
        help: ArgumentHelp(
            "Reverse proxies (IPv4 addresses or networks such as 10.0.0.0/8), exempt from --connections-per-client, "
                + "whose X-Forwarded-For/-Proto are believed; repeatable or comma-separated (REMVVM_TRUSTED_PROXIES).",
            valueName: "address"))
    var trustedProxies: [String] = []
    @Option(
        name: .customLong("request-head-timeout"),
        help: "Seconds a request's line and header fields may take, whole (REMVVM_REQUEST_HEAD_TIMEOUT).")
    var requestHeadTimeout: Int?
    @Option(
        name: .customLong("request-body-timeout"),
        help: "Seconds a request's body may take, whole (REMVVM_REQUEST_BODY_TIMEOUT).")
    var requestBodyTimeout: Int?
    @Option(
        name: .customLong("stream-buffer-budget"),
        help: "Bytes all event streams may hold unsent, together (REMVVM_STREAM_BUFFER_BUDGET).")
    var streamBufferBudget: Int?
    @Option(
        name: .customLong("connection-timeout"),
        help: "Seconds before an idle connection is dropped (REMVVM_CONNECTION_TIMEOUT).")
    var connectionTimeout: Int?
    @Option(
        name: .customLong("connection-memory"),
        help: "Bytes per connection for a request's head and its answer's header fields (REMVVM_CONNECTION_MEMORY).")
    var connectionMemory: Int?
    @Option(name: .customLong("max-body-size"), help: "Largest request body in bytes (REMVVM_MAX_BODY_SIZE).")
    var maxBodySize: Int?
    @Option(name: .customLong("max-sessions"), help: "Sessions held at once (REMVVM_MAX_SESSIONS).")
    var maxSessions: Int?
    @Option(name: .customLong("session-ttl"), help: "Seconds an idle session lives (REMVVM_SESSION_TTL).")
    var sessionTTL: Int?
    @Option(
        name: .customLong("tidy-interval"),
        help: "Seconds between deletions of expired stored sessions; default 60 (REMVVM_TIDY_INTERVAL).")
    var tidyInterval: Int?
    @Option(
        name: .customLong("tidy-batch-size"),
        help: "Expired sessions deleted per transaction; default 500 (REMVVM_TIDY_BATCH_SIZE).")
    var tidyBatchSize: Int?
    @Option(
        name: .customLong("unused-session-ttl"),
        help: "Seconds a session no request used after its creation lives; default 60 (REMVVM_UNUSED_SESSION_TTL).")
    var unusedSessionTTL: Int?
    @Option(
        name: .customLong("session-creation-burst"),
        help:
            "Sessions one client address may create at once, 0 = no limit; default 20 (REMVVM_SESSION_CREATION_BURST).")
    var sessionCreationBurst: Int?
    @Option(
        name: .customLong("session-creation-rate"),
        help:
            "Sessions per second one client address may create after its burst; default 5 (REMVVM_SESSION_CREATION_RATE)."
    )
    var sessionCreationRate: Double?
    @Option(
        name: .customLong("max-view-bytes"),
        help: "Largest JSON of one view in bytes, below 2 MiB; default 1 MiB (REMVVM_MAX_VIEW_BYTES).")
    var maxViewBytes: Int?
    @Option(
        name: .customLong("max-polls-per-session"),
        help: "Parked long-polls per session (REMVVM_MAX_POLLS_PER_SESSION).")
    var maxPollsPerSession: Int?
    @Option(
        name: .customLong("max-streams-per-session"),
        help: "Event streams per session (REMVVM_MAX_STREAMS_PER_SESSION).")
    var maxStreamsPerSession: Int?
    @Option(name: .customLong("max-poll-wait"), help: "Longest long-poll wait in seconds (REMVVM_MAX_POLL_WAIT).")
    var maxPollWait: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (REMVVM_LOG_LEVEL).")
    var logLevel: String?
    @Option(
        name: .customLong("data-dir"),
        help: "Folder of the durable session store, created on first run; default data (REMVVM_DATA_DIR).")
    var dataDir: String?
    @Option(help: "full: a dispatch is answered once it is on disk; off: memory only (REMVVM_DURABILITY).")
    var durability: Durability?
    @Option(
        name: .customLong("database-url"),
        help: "PostgreSQL (libpq URI) to keep sessions in instead of --data-dir (REMVVM_DATABASE_URL).")
    var databaseURL: String?
    @Option(
        name: .customLong("node-name"),
        help: "This node's name as the owner of its sessions; default host:port (REMVVM_NODE_NAME).")
    var nodeName: String?
    @Option(
        name: .customLong("snapshot-every"),
        help: "Commits between snapshots of a session's state; default 1000 (REMVVM_SNAPSHOT_EVERY).")
    var snapshotEvery: Int?
    @Option(
        name: .customLong("database-timeout"),
        help: "Longest ms a PostgreSQL call may take; default 2000 (REMVVM_DATABASE_TIMEOUT).")
    var databaseTimeout: Int?
    @Option(
        name: .customLong("session-loaders"),
        help: "Sessions loaded from PostgreSQL at once; default 4 (REMVVM_SESSION_LOADERS).")
    var sessionLoaders: Int?
    @Option(
        name: .customLong("max-pending-loads"),
        help: "Sessions waiting to be loaded from PostgreSQL; 503 beyond; default 256 (REMVVM_MAX_PENDING_LOADS).")
    var maxPendingLoads: Int?
    @Option(
        name: .customLong("unknown-session-cache"),
        help:
            "Ms an id and token PostgreSQL did not know are answered 404 at once; default 5000 (REMVVM_UNKNOWN_SESSION_CACHE)."
    )
    var unknownSessionCache: Int?
    @Flag(
        name: .customLong("drop-undecodable-sessions"),
        help: "Delete stored sessions that no longer decode, not keep them (REMVVM_DROP_UNDECODABLE_SESSIONS).")
    var dropUndecodableSessions = false
    @Flag(
        name: .customLong("write-newest-format"),
        help: ArgumentHelp(
            "Write this build's state and action versions even while nodes of an older build live (they answer 503 "
                + "for those sessions); by default the oldest live node's (REMVVM_WRITE_NEWEST_FORMAT)."))
    var writeNewestFormat = false
    @Flag(
        name: .customLong("no-answer-batching"),
        help: "Send each answer at once instead of with the rest of its worker pass (REMVVM_NO_ANSWER_BATCHING).")
    var noAnswerBatching = false
    @Flag(
        name: .customLong("no-io-uring"),
        help: "Release a worker pass's answers with one setsockopt each, not one io_uring call (REMVVM_NO_IO_URING).")
    var noIOURing = false
    @Option(
        name: .customLong("max-resume-delay"),
        help: "Longest ms a parked answer waits to be resumed with others; 0: none (REMVVM_MAX_RESUME_DELAY).")
    var maxResumeDelay: Int?
    /// Where `/metrics` is served. Unset, the API port serves it, as before: the default listens on loopback,
    /// and a single port is what a first deployment and the benchmarks scrape. Set, a listener of its own serves
    /// it and the API port answers `/metrics` with 404, so a server open to the public keeps its metrics to
    /// those who reach the operators' port (firewalled, or bound to a private address with `--metrics-host`).
    @Option(
        name: .customLong("metrics-port"),
        help: "Serve /metrics on this port only, not the API port; 0 picks a free one (REMVVM_METRICS_PORT).")
    var metricsPort: UInt16?
    @Option(
        name: .customLong("metrics-host"),
        help: "Address of the --metrics-port listener; default the --host address (REMVVM_METRICS_HOST).")
    var metricsHost: String?
    @Flag(
        name: .customLong("pin-workers"),
        help: "Keep each HTTP worker thread on a CPU of its own (REMVVM_PIN_WORKERS).")
    var pinWorkers = false
    @Option(
        name: .customLong("jwt-key-file"),
        help: ArgumentHelp(
            "Sign-in: sessions belong to the subject of a JWT verified with this key (an HMAC secret or a PEM "
                + "public key); off when unset (REMVVM_JWT_KEY_FILE)."))
    var jwtKeyFile: String?
    @Flag(
        name: .customLong("jwt-every-request"),
        help: "Verify the JWT on every request on a session too, not only at its creation (REMVVM_JWT_EVERY_REQUEST).")
    var jwtEveryRequest = false
    @Option(
        name: .customLong("app-version"),
        help:
            "Which build of the example app to run, 1 or 2 (the upgrade tests' and docs'); default 1 (REMVVM_APP_VERSION)."
    )
    var appVersion: Int?
    @Option(
        name: .customLong("admin-token-file"),
        help: "A file whose text is the token that may post announcements to chat rooms (REMVVM_ADMIN_TOKEN_FILE).")
    var adminTokenFile: String?

    func run() async throws {
        let environment = Environment(ProcessInfo.processInfo.environment)
        let level = Logger.Level(rawValue: logLevel ?? environment["REMVVM_LOG_LEVEL"] ?? "info") ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "remvvm.server")
        var made = try makeConfiguration(environment)
        // The process owns its metrics backend; the server library only records into the factory it is given.
        let (registry, factory) = MetricsListener.makeBackend()
        made.metricsFactory = factory
        let metricsPort = try metricsPort ?? environment.number("REMVVM_METRICS_PORT")
        let metricsHost = metricsHost ?? environment["REMVVM_METRICS_HOST"] ?? made.host
        if metricsPort == nil { made.metricsExposition = { registry.emitToBuffer() } }
        let configuration = made
        var storeConfiguration = StoreConfiguration()
        storeConfiguration.onEffectError = { error in logger.warning("effect failed: \(error)") }
        storeConfiguration.onTopicError = { error in logger.warning("topic: \(error)") }
        let version = try Self.appVersion(appVersion, environment)
        let definition = ExampleApp.definition(version: version, configuration: storeConfiguration)
        let (authentication, routes) = try await signIn(environment: environment, logger: logger)
        let server = try makeServer(
            definition,
            version: version,
            configuration: configuration,
            environment: environment,
            logger: logger,
            authentication: authentication,
            routes: routes
        )
        // Started inside the group, once SIGTERM and SIGINT are trapped: a signal sent as soon as the start line
        // shows must find them trapped. They shut the server down gracefully (StoreServer.run()), which flushes and
        // closes the durable store only after the transport stopped.
        let serving = ClosureService {
            do {
                try server.start()
            } catch {
                throw ValidationError("cannot start: \(error)")
            }
            Self.logStart(server, configuration: configuration, logger: logger)
            let listener = try metricsPort.map { port in
                try Self.startMetricsListener(
                    host: metricsHost, port: port, server: server, registry: registry, logger: logger)
            }
            defer { listener?.stop() }
            try await server.run()
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: serving)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// Starts the listener that alone serves `/metrics` (`--metrics-port`), with one worker thread.
    private static func startMetricsListener(
        host: String, port: UInt16, server: StoreServer, registry: PrometheusCollectorRegistry, logger: Logger
    ) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.threadPoolSize = 1
        configuration.connectionLimit = 64
        configuration.maxBodySize = 1024
        configuration.diagnostics = { message in logger.warning("metrics listener: \(message)") }
        let listener = HTTPServer(
            configuration: configuration, handler: MetricsListener(server: server, registry: registry))
        do {
            try listener.start()
        } catch {
            server.stop()
            throw ValidationError("cannot serve metrics on \(host):\(port): \(error)")
        }
        logger.info("metrics listening on http://\(host):\(listener.port)/metrics")
        return listener
    }

    private static func logStart(_ server: StoreServer, configuration: ServerConfiguration, logger: Logger) {
        let pinnedCPUs =
            server.workerCPUs.isEmpty ? "unpinned" : server.workerCPUs.map(String.init).joined(separator: ",")
        logger.info(
            "ReMVVM server listening on http://\(configuration.host):\(server.port)/",
            metadata: [
                "public.dir": "\(configuration.publicDirectory)", "threads": "\(configuration.threads)",
                "threads.cpus": "\(pinnedCPUs)", "answers": "\(server.answerRelease)",
                "resumes.max_delay_ms": "\(Int(configuration.transportTuning.maxResumeDelay / .milliseconds(1)))",
                "allocator": "\(Allocator.name)",
            ])
    }

    private func makeConfiguration(_ environment: Environment) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.host = host ?? environment["REMVVM_HOST"] ?? configuration.host
        configuration.port = try port ?? environment.number("REMVVM_PORT") ?? configuration.port
        configuration.publicDirectory = publicDir ?? environment["REMVVM_PUBLIC_DIR"] ?? configuration.publicDirectory
        configuration.threads = try threads ?? environment.number("REMVVM_THREADS") ?? configuration.threads
        configuration.connectionLimit =
            try connectionLimit ?? environment.number("REMVVM_CONNECTION_LIMIT") ?? configuration.connectionLimit
        configuration.connectionsPerClient =
            try connectionsPerClient ?? environment.number("REMVVM_CONNECTIONS_PER_CLIENT")
            ?? configuration.connectionsPerClient
        let proxies = trustedProxies.isEmpty ? environment["REMVVM_TRUSTED_PROXIES"].map { [$0] } ?? [] : trustedProxies
        configuration.trustedProxies = proxies.flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        if let seconds = try requestHeadTimeout ?? environment.number("REMVVM_REQUEST_HEAD_TIMEOUT") as Int? {
            guard seconds >= 1 else { throw ValidationError("--request-head-timeout must be at least 1 second") }
            configuration.requestHeadTimeout = .seconds(seconds)
        }
        if let seconds = try requestBodyTimeout ?? environment.number("REMVVM_REQUEST_BODY_TIMEOUT") as Int? {
            guard seconds >= 1 else { throw ValidationError("--request-body-timeout must be at least 1 second") }
            configuration.requestBodyTimeout = .seconds(seconds)
        }
        configuration.streamBufferBudget =
            try streamBufferBudget ?? environment.number("REMVVM_STREAM_BUFFER_BUDGET")
            ?? configuration.streamBufferBudget
        configuration.connectionTimeout =
            try connectionTimeout ?? environment.number("REMVVM_CONNECTION_TIMEOUT") ?? configuration.connectionTimeout
        configuration.connectionMemory =
            try connectionMemory ?? environment.number("REMVVM_CONNECTION_MEMORY") ?? configuration.connectionMemory
        configuration.maxBodySize =
            try maxBodySize ?? environment.number("REMVVM_MAX_BODY_SIZE") ?? configuration.maxBodySize
        configuration.maxSessions =
            try maxSessions ?? environment.number("REMVVM_MAX_SESSIONS") ?? configuration.maxSessions
        if let ttl = try sessionTTL ?? environment.number("REMVVM_SESSION_TTL") as Int? {
            configuration.sessionTTL = .seconds(ttl)
        }
        if let interval = try tidyInterval ?? environment.number("REMVVM_TIDY_INTERVAL") as Int? {
            guard interval >= 1 else { throw ValidationError("--tidy-interval must be at least 1 second") }
            configuration.tidyInterval = .seconds(interval)
        }
        configuration.tidyBatchSize =
            try tidyBatchSize ?? environment.number("REMVVM_TIDY_BATCH_SIZE") ?? configuration.tidyBatchSize
        guard configuration.tidyBatchSize >= 1 else { throw ValidationError("--tidy-batch-size must be at least 1") }
        if let ttl = try unusedSessionTTL ?? environment.number("REMVVM_UNUSED_SESSION_TTL") as Int? {
            configuration.unusedSessionTTL = .seconds(ttl)
        }
        configuration.sessionCreationBurst =
            try sessionCreationBurst ?? environment.number("REMVVM_SESSION_CREATION_BURST")
            ?? configuration.sessionCreationBurst
        configuration.sessionCreationRate =
            try sessionCreationRate ?? environment.decimal("REMVVM_SESSION_CREATION_RATE")
            ?? configuration.sessionCreationRate
        configuration.maxViewBytes =
            try maxViewBytes ?? environment.number("REMVVM_MAX_VIEW_BYTES") ?? configuration.maxViewBytes
        configuration.maxPollsPerSession =
            try maxPollsPerSession ?? environment.number("REMVVM_MAX_POLLS_PER_SESSION")
            ?? configuration.maxPollsPerSession
        configuration.maxStreamsPerSession =
            try maxStreamsPerSession ?? environment.number("REMVVM_MAX_STREAMS_PER_SESSION")
            ?? configuration.maxStreamsPerSession
        if let wait = try maxPollWait ?? environment.number("REMVVM_MAX_POLL_WAIT") as Int? {
            configuration.maxPollWait = .seconds(wait)
        }
        configuration.transportTuning.batchesAnswers =
            try !(noAnswerBatching || environment.isOn("REMVVM_NO_ANSWER_BATCHING"))
        configuration.transportTuning.releasesAnswersInOneCall =
            try !(noIOURing || environment.isOn("REMVVM_NO_IO_URING"))
        configuration.transportTuning.pinsWorkers = try pinWorkers || environment.isOn("REMVVM_PIN_WORKERS")
        if let delay = try maxResumeDelay ?? environment.number("REMVVM_MAX_RESUME_DELAY") as Int? {
            guard delay >= 0 else { throw ValidationError("--max-resume-delay must be 0 or more milliseconds") }
            configuration.transportTuning.maxResumeDelay = .milliseconds(delay)
        }
        configuration.sessionLoaders =
            try sessionLoaders ?? environment.number("REMVVM_SESSION_LOADERS") ?? configuration.sessionLoaders
        configuration.maxPendingLoads =
            try maxPendingLoads ?? environment.number("REMVVM_MAX_PENDING_LOADS") ?? configuration.maxPendingLoads
        if let cache = try unknownSessionCache ?? environment.number("REMVVM_UNKNOWN_SESSION_CACHE") as Int? {
            guard cache >= 0 else { throw ValidationError("--unknown-session-cache must be 0 or more milliseconds") }
            configuration.unknownSessionCacheTTL = .milliseconds(cache)
        }
        guard configuration.sessionLoaders >= 1 else { throw ValidationError("--session-loaders must be at least 1") }
        guard configuration.maxPendingLoads >= 1 else {
            throw ValidationError("--max-pending-loads must be at least 1")
        }
        guard configuration.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard configuration.maxBodySize >= 1 else { throw ValidationError("--max-body-size must be positive") }
        guard configuration.sessionCreationBurst >= 0, configuration.sessionCreationRate >= 0 else {
            throw ValidationError("--session-creation-burst and --session-creation-rate must be 0 or more")
        }
        guard (1...ServerConfiguration.maxViewBytesLimit).contains(configuration.maxViewBytes) else {
            throw ValidationError(
                "--max-view-bytes must be 1 to \(ServerConfiguration.maxViewBytesLimit), half of what an event stream buffers"
            )
        }
        return configuration
    }
}
