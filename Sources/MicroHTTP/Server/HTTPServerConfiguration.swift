import Glibc

/// How an ``HTTPServer`` binds, how many connections it keeps and how it guards memory.
///
/// The thread count follows the machine; the connection defaults replace libmicrohttpd's own (1,020 connections,
/// 32 KiB per connection), which cap long-poll fan-out and double its memory.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 address to bind: `"127.0.0.1"` (only this machine), `"0.0.0.0"` (every interface) or any
    /// other dotted quad; `"localhost"` means `127.0.0.1`.
    public var host: String = "127.0.0.1"

    /// The TCP port; 0 asks the kernel for a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16 = 8080

    /// Worker threads, each running its own libmicrohttpd daemon and epoll loop on the shared listening socket;
    /// by default one per CPU this process may run on (``defaultThreadPoolSize``).
    public var threadPoolSize: Int = HTTPServerConfiguration.defaultThreadPoolSize

    /// One worker thread per CPU this process may run on (its affinity mask, so a container's or `taskset`'s
    /// restriction counts): the workers never wait for each other, so more would only take turns on a CPU.
    public static var defaultThreadPoolSize: Int { CPUSet.count }

    /// Connections held at once, parked ones included; each worker's daemon takes an equal share
    /// (`MHD_OPTION_CONNECTION_LIMIT`), and the listening socket is left to the workers with room.
    public var connectionLimit: Int = 10_000

    /// Connections held at once per client IP, over all workers; 0 means unlimited. A connection beyond it gets a
    /// 429 problem with `Retry-After`, written as soon as it is accepted, and is closed: it never holds one of the
    /// ``connectionLimit`` places. Peers in ``trustedProxies`` are exempt (a reverse proxy's connections all come
    /// from its one address); the server-wide limit holds for them too.
    public var perClientConnectionLimit: Int = HTTPServerConfiguration.defaultPerClientConnectionLimit

    /// The default per-address limit, 256: a browser opens 6 to 17 connections to a host, a NAT of a few dozen
    /// such users fits, and 39 addresses are needed to take the 10,000 places of the default ``connectionLimit``
    /// (one address could take them all when the limit was off).
    public static let defaultPerClientConnectionLimit = 256

    /// The reverse proxies in front of the server, as IPv4 addresses or networks (``ProxyList``), exempt from
    /// ``perClientConnectionLimit``. The layer above uses the same list to decide whose `X-Forwarded-For` it
    /// believes: ``HTTPRequest/isFromTrustedProxy`` tells it per request, ``trusts(proxy:)`` for an address.
    public var trustedProxies: [String] = []

    /// The longest a request head (request line and header fields together) may take to arrive; then the
    /// connection gets a 408 problem and is closed. Counted from the connection's opening for its first request,
    /// and from the request line for a later one on a keep-alive connection (whose wait before it is bounded by
    /// ``connectionTimeout``, counted whole from the previous answer). libmicrohttpd's own timeout restarts with
    /// every byte, so without this a client sending a byte every few seconds holds a connection forever.
    public var requestHeadTimeout: Duration = .seconds(15)

    /// The longest a request body may take to arrive once its head has, counted whole (not per byte); then the
    /// connection gets a 408 problem and is closed.
    public var requestBodyTimeout: Duration = .seconds(60)

    /// Bytes all event streams together may hold written but not yet sent (``ResponseStream``), over the
    /// per-stream limit of each. A write that would take the total over it ends its stream if that stream still
    /// holds unsent bytes (its client is not keeping up; it reconnects), and while the total is over it a new
    /// stream's response is answered 503 with `Retry-After` instead. A stream with nothing unsent still takes its
    /// next event, so the total passes the budget by at most one event per stream that keeps up.
    public var streamBufferBudget: Int = 256 << 20

    /// Bytes of libmicrohttpd memory pool per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`).
    ///
    /// It holds the request head, the values parsed out of it and the answer's status line and header fields.
    /// A URL that would leave less than 1 KiB for the header fields and 1 KiB for the answer, counting 64 bytes per
    /// query argument, is refused with 414, and a head that leaves less than 1 KiB for the answer with 431, both
    /// unhandled (``ConnectionMemory``): with the default 4.5 KiB, URLs over 2,560 bytes less 64 per argument or
    /// with more than 20 arguments, and header fields over about 3 KB or a `Cookie` field over about 1.5 KB
    /// (libmicrohttpd keeps it twice).
    /// libmicrohttpd zeroes the whole pool after every answer, so a connection that has been answered once keeps
    /// all of it resident: each KiB here is a KiB per parked long-poll of a client that polls again (7.1 KiB with
    /// the default, 11 KiB with 8,192 bytes; BENCHMARKS.md, scenario 2b). The server does not start with less than
    /// 4 KiB.
    public var connectionMemoryLimit: Int = HTTPServerConfiguration.defaultConnectionMemoryLimit

    /// The default pool: it keeps a long-poll parked again on its connection under 8 KiB of resident memory (5 KiB
    /// would not: 8.1), and leaves room for the heads browsers send.
    public static let defaultConnectionMemoryLimit = 4608

    /// Seconds a connection may sit idle before libmicrohttpd closes it; 0 means never
    /// (`MHD_OPTION_CONNECTION_TIMEOUT`). Parked (suspended) connections never time out.
    ///
    /// Keep it non-zero: libmicrohttpd 0.9.75 does not always notice a client that leaves in the middle of a
    /// request (a partial head or body) and keeps such sockets in CLOSE-WAIT until this timeout reaps them;
    /// with 0 they leak.
    public var connectionTimeout: Int = 60

    /// The largest request body accepted; larger bodies get a 413 problem without reaching the handler.
    public var maxBodySize: Int = 1 << 20

    /// The `listen(2)` backlog: connections the kernel completes before a worker accepts them. 4096, Linux's
    /// default cap (`net.core.somaxconn`): when a node dies behind a balancer, its clients all reconnect to the
    /// others at once, and a connection that overflows the backlog waits for a SYN retry (a second or more), which
    /// a balancer with a 1 s connect timeout counts as a dead node.
    public var listenBacklog: Int = 4096

    /// Whether to watch parked connections for their client leaving.
    ///
    /// libmicrohttpd stops watching a suspended socket, so without this a client that leaves a long-poll or an
    /// idle event stream is only noticed when the next response is written to it. With it, a dedicated thread
    /// watches parked sockets with epoll (`EPOLLRDHUP`) and ends such requests at once, which runs their
    /// ``Responder/onTermination(_:)`` and ``ResponseStream/onTermination(_:)`` handlers.
    public var detectsDisconnectedParkedClients: Bool = true

    /// How the worker threads tune their event loops: measured choices the executable may switch for
    /// benchmarks, not part of the public configuration (``TransportTuning``).
    package var tuning = TransportTuning()

    /// How long ``HTTPServer/stop(answeringPendingWith:)`` waits for parked requests and open streams to
    /// deliver their last response before it closes every connection.
    public var stopGracePeriod: Duration = .seconds(2)

    /// Receives one-line descriptions of problems the transport handled on its own (a header libmicrohttpd
    /// rejected, a file that could not be opened), so the layer above can log them; called on any thread.
    public var diagnostics: (@Sendable (String) -> Void)?

    /// Creates the default configuration (127.0.0.1:8080, a thread per CPU, 10,000 connections).
    public init() {}

    /// Creates a configuration, naming only what differs from the defaults.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        threadPoolSize: Int = HTTPServerConfiguration.defaultThreadPoolSize,
        connectionLimit: Int = 10_000,
        perClientConnectionLimit: Int = HTTPServerConfiguration.defaultPerClientConnectionLimit,
        connectionMemoryLimit: Int = HTTPServerConfiguration.defaultConnectionMemoryLimit,
        connectionTimeout: Int = 60,
        maxBodySize: Int = 1 << 20,
        listenBacklog: Int = 4096,
        detectsDisconnectedParkedClients: Bool = true,
        stopGracePeriod: Duration = .seconds(2),
        diagnostics: (@Sendable (String) -> Void)? = nil,
        trustedProxies: [String] = []
    ) {
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.connectionLimit = connectionLimit
        self.perClientConnectionLimit = perClientConnectionLimit
        self.connectionMemoryLimit = connectionMemoryLimit
        self.connectionTimeout = connectionTimeout
        self.maxBodySize = maxBodySize
        self.listenBacklog = listenBacklog
        self.detectsDisconnectedParkedClients = detectsDisconnectedParkedClients
        self.stopGracePeriod = stopGracePeriod
        self.diagnostics = diagnostics
        self.trustedProxies = trustedProxies
    }

    /// Whether `address` (a peer's dotted quad, as ``HTTPRequest/clientAddress`` gives it) is one of
    /// ``trustedProxies``.
    public func trusts(proxy address: String) -> Bool {
        ProxyList(trustedProxies).contains(address)
    }
}
