/// Where a connection's current request stands, and by when it must move on: the whole-head and whole-body
/// deadlines libmicrohttpd lacks (its timeout restarts with every byte). A value-type state machine; the worker
/// keeps one per open connection and sweeps them (``WorkerLoop``).
struct RequestDeadline: Sendable, Equatable {
    /// What the connection is waiting for.
    enum Phase: Sendable, Equatable {
        /// The request line and header fields.
        case head
        /// The body, the head being complete.
        case body
        /// Nothing from the client: the request is being handled, parked or streamed (no deadline).
        case handling
        /// The next request on a keep-alive connection, up to its request line.
        case idle
    }

    /// The deadlines in nanoseconds of the monotonic clock; `idle` nil for none.
    struct Limits: Sendable, Equatable {
        var head: Int64
        var body: Int64
        var idle: Int64?

        /// The limits of `configuration`: its head and body timeouts, and its connection timeout (0: none) for the
        /// wait before a later request's line.
        init(_ configuration: HTTPServerConfiguration) {
            head = MonotonicClock.nanoseconds(of: configuration.requestHeadTimeout)
            body = MonotonicClock.nanoseconds(of: configuration.requestBodyTimeout)
            idle = configuration.connectionTimeout > 0 ? Int64(configuration.connectionTimeout) * 1_000_000_000 : nil
        }
    }

    private(set) var phase: Phase
    /// When the phase ends the connection, on the monotonic clock; nil for never.
    private(set) var deadline: Int64?

    /// A connection just opened: its first request's head is due within the head limit.
    init(openedAt now: Int64, limits: Limits) {
        phase = .head
        deadline = now &+ limits.head
    }

    /// libmicrohttpd read a request line. A keep-alive connection's next head is due from now; a first request's
    /// head keeps the deadline counted from the opening.
    mutating func requestLineSeen(at now: Int64, limits: Limits) {
        guard phase == .idle else { return }
        phase = .head
        deadline = now &+ limits.head
    }

    /// The head is complete (the first access-handler call): the body is due within the body limit.
    mutating func headReceived(at now: Int64, limits: Limits) {
        phase = .body
        deadline = now &+ limits.body
    }

    /// The body is complete: the request is the server's to answer, with no deadline.
    mutating func bodyReceived() {
        phase = .handling
        deadline = nil
    }

    /// The answer went out: the next request line is due within the idle limit, if any.
    mutating func requestCompleted(at now: Int64, limits: Limits) {
        phase = .idle
        deadline = limits.idle.map { now &+ $0 }
    }

    /// The phase whose deadline passed by `now`, if one did; the connection is then to be closed.
    func expired(at now: Int64) -> Phase? {
        guard let deadline, now >= deadline else { return nil }
        return phase
    }

    /// The worker is closing the connection for a missed deadline: nothing more is due.
    mutating func expire() {
        phase = .handling
        deadline = nil
    }
}
