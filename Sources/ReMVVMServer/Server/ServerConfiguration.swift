import MicroHTTP

/// Everything an operator can set: where to listen, what to serve, and every limit.
public struct ServerConfiguration: Sendable {
    /// The address to bind (`127.0.0.1`; `0.0.0.0` in a container).
    public var host = "127.0.0.1"
    /// The port to bind; 0 picks a free one (tests).
    public var port: UInt16 = 8080
    /// The folder served at `/` (the web client and `openapi.yaml`).
    public var publicDirectory = "public"
    /// HTTP worker threads, each running its own libmicrohttpd event loop; by default one per CPU this process may
    /// run on (``HTTPServerConfiguration/defaultThreadPoolSize``).
    public var threads = HTTPServerConfiguration.defaultThreadPoolSize
    /// Open connections in total; more are refused.
    public var connectionLimit = 10_000
    /// Open connections per client address (0 = no limit).
    public var connectionsPerClient = 0
    /// Seconds an idle connection is kept before it is dropped.
    public var connectionTimeout = 60
    /// Per-connection memory (bytes) for a request's head and its answer's header fields; bounds the request head
    /// size (``HTTPServerConfiguration/connectionMemoryLimit``).
    public var connectionMemory = HTTPServerConfiguration.defaultConnectionMemoryLimit
    /// The largest request body accepted (413 beyond).
    public var maxBodySize = 1 << 20
    /// Sessions held at once (503 beyond).
    public var maxSessions = 200_000
    /// How long a session may stay idle before it expires, counted from its last request or the end of its last
    /// long-poll or event stream; a session someone waits on is never idle.
    public var sessionTTL: Duration = .seconds(30 * 60)
    /// How often durable storage is tidied: stored sessions past their expiry (a TTL after their last use, held by
    /// no node) are deleted with their logs and keys.
    public var tidyInterval: Duration = .seconds(60)
    /// Sessions deleted per tidy transaction; a round goes on in batches until one comes back short.
    public var tidyBatchSize = 500
    /// Parked long-polls per session (429 beyond).
    public var maxPollsPerSession = 100
    /// Open event streams per session (429 beyond).
    public var maxStreamsPerSession = 20
    /// The longest a long-poll may wait.
    public var maxPollWait: Duration = .seconds(55)
    /// How long a long-poll waits when the client does not say.
    public var defaultPollWait: Duration = .seconds(30)
    /// How often an event stream gets a heartbeat comment.
    public var heartbeatInterval: Duration = .seconds(15)
    /// The app's async code running at once for parked requests (its authenticator, its routes); 503 beyond.
    public var maxRunningHandlers = 1_000
    /// Remembered `Idempotency-Key`s per session.
    public var idempotencyKeysPerSession = 256
    /// How long a stopping server, which no longer accepts connections, keeps serving the ones open (each answer
    /// then closing its connection) before it answers its parked requests and closes; it moves on sooner once
    /// no connection is idle or busy. Idle keep-alive connections are closed within 1 s of the drain's start (the
    /// shortest inactivity timeout libmicrohttpd takes), so a period of 1 s or more lets them all close while
    /// idle, rather than be cut by the stop just as a reverse proxy sends a request on one.
    public var drainPeriod: Duration = .seconds(1)
    /// How the HTTP workers tune their event loops (``TransportTuning``): for the executable's benchmark
    /// switches, not part of the public configuration.
    package var transportTuning = TransportTuning()

    /// The defaults: loopback on 8080, serving `public/`.
    public init() {}

    var transport: HTTPServerConfiguration {
        var transport = HTTPServerConfiguration()
        transport.host = host
        transport.port = port
        transport.threadPoolSize = threads
        transport.connectionLimit = connectionLimit
        transport.perClientConnectionLimit = connectionsPerClient
        transport.connectionTimeout = connectionTimeout
        transport.connectionMemoryLimit = connectionMemory
        transport.maxBodySize = maxBodySize
        transport.tuning = transportTuning
        return transport
    }
}
