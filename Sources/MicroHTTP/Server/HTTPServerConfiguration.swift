/// How an ``HTTPServer`` binds, how many connections it keeps and how it guards memory.
///
/// The defaults are the ones measured on the project's 2-core target: libmicrohttpd's own defaults (1,020
/// connections, 32 KiB per connection) cap long-poll fan-out and double its memory.
public struct HTTPServerConfiguration: Sendable {
    /// The IPv4 address to bind: `"127.0.0.1"` (only this machine), `"0.0.0.0"` (every interface) or any
    /// other dotted quad; `"localhost"` means `127.0.0.1`.
    public var host: String = "127.0.0.1"

    /// The TCP port; 0 asks the kernel for a free one (read it back from ``HTTPServer/port``).
    public var port: UInt16 = 8080

    /// libmicrohttpd worker threads, each with its own epoll loop; 1 runs a single polling thread.
    public var threadPoolSize: Int = 2

    /// Connections held at once, parked ones included (`MHD_OPTION_CONNECTION_LIMIT`).
    public var connectionLimit: Int = 10_000

    /// Connections held at once per client IP; 0 means unlimited (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`).
    public var perClientConnectionLimit: Int = 0

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

    /// The `listen(2)` backlog (`MHD_OPTION_LISTEN_BACKLOG_SIZE`).
    public var listenBacklog: Int = 1024

    /// Whether to watch parked connections for their client leaving.
    ///
    /// libmicrohttpd stops watching a suspended socket, so without this a client that leaves a long-poll or an
    /// idle event stream is only noticed when the next response is written to it. With it, a dedicated thread
    /// watches parked sockets with epoll (`EPOLLRDHUP`) and ends such requests at once, which runs their
    /// ``Responder/onTermination(_:)`` and ``ResponseStream/onTermination(_:)`` handlers.
    public var detectsDisconnectedParkedClients: Bool = true

    /// Whether the answers a worker gives during one pass of its event loop go out together when the pass
    /// ends, instead of one by one as each is queued.
    ///
    /// A client holding many keep-alive connections in one loop (a reverse proxy, a load generator) is then
    /// woken once per pass rather than once per answer. Holding an answer costs no system call (its send
    /// carries `MSG_MORE`); releasing it is one `setsockopt` (`TCP_CORK` off), or a share of one io_uring call
    /// (see ``releasesAnswersInOneCall``). An answer waits at most for the rest of its pass: the other requests
    /// that were ready at the same moment. Only answers given while the handler runs are held; long-poll
    /// answers and streams go out at once (held too, a fan-out's last answer came 6-12% later: its client waits
    /// on every one). ``HTTPServer/batchesAnswers`` tells whether a running server does it.
    public var batchesAnswers: Bool = true

    /// Whether a worker releases the answers it held during a pass in one system call (an io_uring
    /// submission of socket commands) rather than one `setsockopt` each, where the kernel allows it.
    ///
    /// Each release can wake the client, which on a busy machine then preempts the worker to read that one
    /// answer, and the pass's answers trickle out one by one again; released in one call, the worker can be
    /// preempted once, as it returns. It needs Linux 6.7 or later and a process that may use io_uring
    /// (container runtimes' default seccomp profiles forbid it); elsewhere answers are released one by one.
    /// Only matters with ``batchesAnswers``. ``HTTPServer/releasesAnswersInOneCall`` tells whether a running
    /// server does it.
    public var releasesAnswersInOneCall: Bool = true

    /// Whether each worker thread is kept on a CPU of its own: worker `k`, as it accepts its first
    /// connection, on the `k`-th CPU this process may run on (round robin when there are more workers).
    ///
    /// Left free, the scheduler can settle both workers on one CPU while the clients they share the machine
    /// with run on the other, and keep them there: on the project's two cores that placement answered
    /// dispatches 21% slower than workers apart, in some runs and not others. Pinned workers never share a
    /// CPU, but neither can they move to an idle one: a fan-out that leaves one worker with more connections
    /// than the other then takes longer (14% on 10,000 long-polls there), so it is off by default. Threads a
    /// pinned worker starts (libdispatch grows its pool from the thread that queues work) get the worker's
    /// former CPU set back. ``HTTPServer/workerCPUs`` tells the CPUs.
    public var pinsWorkers: Bool = false

    /// The longest a parked connection's answer waits for others to be resumed with it, reached with 10,000
    /// connections parked and shorter in proportion below; zero resumes every answer at once.
    ///
    /// libmicrohttpd 0.9.7x walks every suspended connection for each batch of resumes a worker picks up, so
    /// with thousands parked and answers trickling in (one long-poll on each of many sessions) resuming each
    /// answer alone costs a walk per answer; waiting a little lets many share it. A batch that gathers a
    /// fortieth of the parked connections goes at once, so a burst is not held back (``ResumePacing``). With
    /// the default 8 ms, one long-poll on each of 10,000 sessions took 8-12% less CPU than with 4 ms paced
    /// after small batches only (see BENCHMARKS.md).
    public var maxResumeDelay: Duration = .milliseconds(8)

    /// How long ``HTTPServer/stop(answeringPendingWith:)`` waits for parked requests and open streams to
    /// deliver their last response before it closes every connection.
    public var stopGracePeriod: Duration = .seconds(2)

    /// Receives one-line descriptions of problems the transport handled on its own (a header libmicrohttpd
    /// rejected, a file that could not be opened), so the layer above can log them; called on any thread.
    public var diagnostics: (@Sendable (String) -> Void)?

    /// Creates the default configuration (127.0.0.1:8080, 2 threads, 10,000 connections).
    public init() {}

    /// Creates a configuration, naming only what differs from the defaults.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        threadPoolSize: Int = 2,
        connectionLimit: Int = 10_000,
        perClientConnectionLimit: Int = 0,
        connectionMemoryLimit: Int = HTTPServerConfiguration.defaultConnectionMemoryLimit,
        connectionTimeout: Int = 60,
        maxBodySize: Int = 1 << 20,
        listenBacklog: Int = 1024,
        detectsDisconnectedParkedClients: Bool = true,
        batchesAnswers: Bool = true,
        releasesAnswersInOneCall: Bool = true,
        pinsWorkers: Bool = false,
        maxResumeDelay: Duration = .milliseconds(8),
        stopGracePeriod: Duration = .seconds(2),
        diagnostics: (@Sendable (String) -> Void)? = nil
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
        self.batchesAnswers = batchesAnswers
        self.releasesAnswersInOneCall = releasesAnswersInOneCall
        self.pinsWorkers = pinsWorkers
        self.maxResumeDelay = maxResumeDelay
        self.stopGracePeriod = stopGracePeriod
        self.diagnostics = diagnostics
    }
}
