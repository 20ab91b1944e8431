import ArgumentParser
import ExampleApp
import Foundation
import Logging
import MicroHTTP
import ReMVVM
import ReMVVMServer
import ServiceLifecycle
import UnixSignals

/// `remvvm-server`: runs the example app. Every option can also come from an environment
/// variable (`--port` from `REMVVM_PORT`, `--public-dir` from `REMVVM_PUBLIC_DIR`, ...);
/// a flag wins over the environment, which wins over the default.
@main
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remvvm-server",
        abstract: "Serve the ReMVVM example app: one store per client session over HTTP.",
        discussion: "Each option can also be set with the environment variable shown, e.g. REMVVM_PORT=9000."
    )

    @Option(help: "Address to listen on (REMVVM_HOST).") var host: String?
    @Option(help: "Port to listen on; 0 picks a free one (REMVVM_PORT).") var port: UInt16?
    @Option(name: .customLong("public-dir"), help: "Folder served at / (REMVVM_PUBLIC_DIR).") var publicDir: String?
    @Option(help: "HTTP worker threads; default one per CPU (REMVVM_THREADS).") var threads: Int?
    @Option(name: .customLong("connection-limit"), help: "Open connections in total (REMVVM_CONNECTION_LIMIT).")
    var connectionLimit: Int?
    @Option(
        name: .customLong("connections-per-client"),
        help: "Open connections per client address, 0 = no limit (REMVVM_CONNECTIONS_PER_CLIENT).")
    var connectionsPerClient: Int?
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
    @Flag(
        name: .customLong("drop-undecodable-sessions"),
        help: "Delete stored sessions that no longer decode, not keep them (REMVVM_DROP_UNDECODABLE_SESSIONS).")
    var dropUndecodableSessions = false
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
        let configuration = try makeConfiguration(environment)
        var storeConfiguration = StoreConfiguration()
        storeConfiguration.onEffectError = { error in logger.warning("effect failed: \(error)") }
        storeConfiguration.onTopicError = { error in logger.warning("topic: \(error)") }
        let definition = ExampleApp.definition(configuration: storeConfiguration)
        let (authentication, routes) = try await signIn(
            topics: definition.topics, environment: environment, logger: logger)
        let server = try makeServer(
            definition,
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
            try await server.run()
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: serving)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
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
        guard configuration.threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard configuration.maxBodySize >= 1 else { throw ValidationError("--max-body-size must be positive") }
        return configuration
    }
}
