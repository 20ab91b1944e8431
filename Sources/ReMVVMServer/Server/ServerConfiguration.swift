import CoreMetrics
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
    /// Open connections per client address (0 = no limit); trusted proxies are exempt
    /// (``HTTPServerConfiguration/perClientConnectionLimit``).
    public var connectionsPerClient = HTTPServerConfiguration.defaultPerClientConnectionLimit
    /// The longest a request's head may take to arrive, whole (408 beyond).
    public var requestHeadTimeout: Duration = .seconds(15)
    /// The longest a request's body may take to arrive, whole (408 beyond).
    public var requestBodyTimeout: Duration = .seconds(60)
    /// Bytes all event streams together may hold unsent (``HTTPServerConfiguration/streamBufferBudget``).
    public var streamBufferBudget = 256 << 20
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
    /// How long a session nobody used since its creation lasts (`sessionTTL` counts once a request used it), so
    /// that sessions created and dropped by the thousand do not hold their places for the full TTL.
    public var unusedSessionTTL: Duration = .seconds(60)
    /// Sessions one client address may create at once before it is slowed down (a token bucket's size; 0 = no
    /// limit per address). Beyond it, creations get 429 with `Retry-After`.
    public var sessionCreationBurst = 20
    /// Sessions one client address may create per second once its burst is spent (the bucket's refill rate).
    public var sessionCreationRate = 5.0
    /// Client addresses tracked for the creation budget; the least recently seen is forgotten beyond it, so the
    /// table's memory stays bounded whatever the number of addresses.
    public var sessionCreationAddresses = 65_536
    /// The reverse proxies in front of the server, as IPv4 addresses (`127.0.0.1`) or networks (`10.0.0.0/8`):
    /// exempt from the per-address connection limit, and the only peers whose `X-Forwarded-For` and
    /// `X-Forwarded-Proto` are believed. From any other peer these headers are ignored. Behind a proxy that is not
    /// listed, every client is counted under the proxy's address.
    public var trustedProxies: [String] = []
    /// The most bytes one view's JSON may have. A dispatch after which a view is larger is answered with a
    /// problem naming it, and no answer, long-poll or event carries it until it shrinks. At most
    /// ``maxViewBytesLimit``.
    public var maxViewBytes = 1 << 20
    /// The largest ``maxViewBytes`` a server starts with: half of what an event stream buffers (4 MiB), so a
    /// stream's first event of one view always fits, with room for the events after it.
    public static let maxViewBytesLimit = 2 << 20
    /// Remembered `Idempotency-Key`s per session.
    public var idempotencyKeysPerSession = 256
    /// How long a stopping server, which no longer accepts connections, keeps serving the ones open (each answer
    /// then closing its connection) before it answers its parked requests and closes; it moves on sooner once
    /// no connection is idle or busy. Idle keep-alive connections are closed within 1 s of the drain's start (the
    /// shortest inactivity timeout libmicrohttpd takes), so a period of 1 s or more lets them all close while
    /// idle, rather than be cut by the stop just as a reverse proxy sends a request on one.
    public var drainPeriod: Duration = .seconds(1)
    /// Where the server records its metrics (swift-metrics): requests by route and status, dispatch latency
    /// (``dispatchLatencyBuckets``), refusals by reason and the gauges. nil records nothing.
    ///
    /// A library never bootstraps the process-wide `MetricsSystem`: it runs inside someone else's process. The
    /// process chooses the backend and hands it here; the executable passes a `PrometheusMetricsFactory` over
    /// the registry it serves.
    public var metricsFactory: (any MetricsFactory)?
    /// What `GET /metrics` on this port answers: the Prometheus text (version 0.0.4) of the registry
    /// ``metricsFactory`` records into, made at each scrape after the gauges are set. nil answers `/metrics`
    /// with 404 here, as when an operator serves the metrics on a listener of their own that only operators
    /// reach (the executable's `--metrics-port`).
    public var metricsExposition: (@Sendable () -> [UInt8])?
    /// Most of the server's bytes an `Idempotency-Key`'s remembered answer may hold, in memory and in storage:
    /// a replay rebuilds the views, so only the results and the version are kept. A batch whose results pass
    /// it (hundreds of actions) is remembered with its version only, and replays with empty results.
    public var maxIdempotentAnswerSize = 4096
    /// Sessions loaded from a shared storage at once (each on a connection of its own).
    public var sessionLoaders = 4
    /// Sessions waiting to be loaded from a shared storage at once, or being loaded; a request for one more gets 503
    /// with `Retry-After`, so that ids nobody holds cannot queue without end ahead of real takeovers.
    public var maxPendingLoads = 256
    /// How long an id and token that a shared storage did not know are answered 404 without asking it again.
    public var unknownSessionCacheTTL: Duration = .seconds(5)
    /// How the HTTP workers tune their event loops (``TransportTuning``): for the executable's benchmark
    /// switches, not part of the public configuration.
    package var transportTuning = TransportTuning()

    /// The defaults: loopback on 8080, serving `public/`.
    public init() {}

    /// The buckets of the dispatch latency histogram (`remvvm_dispatch_duration_seconds`), 50 µs to 1 s: give
    /// them to the metrics backend (a `PrometheusMetricsFactory`'s `durationHistogramBuckets`), whose defaults
    /// start at 5 ms, above most dispatches.
    public static let dispatchLatencyBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
    ]

    /// The name of the dispatch latency histogram, for a backend's per-metric buckets.
    public static let dispatchLatencyMetric = "remvvm_dispatch_duration_seconds"

    var transport: HTTPServerConfiguration {
        var transport = HTTPServerConfiguration()
        transport.host = host
        transport.port = port
        transport.threadPoolSize = threads
        transport.connectionLimit = connectionLimit
        transport.perClientConnectionLimit = connectionsPerClient
        transport.trustedProxies = trustedProxies
        transport.requestHeadTimeout = requestHeadTimeout
        transport.requestBodyTimeout = requestBodyTimeout
        transport.streamBufferBudget = streamBufferBudget
        transport.connectionTimeout = connectionTimeout
        transport.connectionMemoryLimit = connectionMemory
        transport.maxBodySize = maxBodySize
        transport.tuning = transportTuning
        return transport
    }
}
