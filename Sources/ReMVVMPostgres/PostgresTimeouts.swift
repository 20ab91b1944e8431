/// How long PostgreSQL may take before a call fails: one deadline, from which the server's own timeouts and the
/// TCP settings of every connection follow.
///
/// A frozen database (every process stopped, a blackholed network, a paused VM) keeps its connections open and
/// answers nothing: without a deadline a call waits for ever, and so does every dispatch behind it. With one, the
/// call fails after ``call`` and the connection is closed (its next use connects again), so the writer reports the
/// storage as failing and the server answers 503 with `Retry-After` until the database answers again.
public struct PostgresTimeouts: Sendable, Equatable {
    /// The client-side deadline of each call (a statement, a pipeline, a connection attempt), measured from when it
    /// is sent; also the server's `statement_timeout` and `lock_timeout`, so that the server gives up too.
    public var call: Duration
    /// The server's `idle_in_transaction_session_timeout`: a transaction left open by a client that went away.
    public var idleInTransaction: Duration
    /// `keepalives_idle`: a peer that vanished without a word is noticed on an idle connection (a listener's)
    /// after `idle + interval × count`.
    public var keepaliveIdle: Duration
    /// `keepalives_interval`: the pause between unanswered keepalive probes.
    public var keepaliveInterval: Duration
    /// `keepalives_count`: unanswered probes before the connection is dropped.
    public var keepaliveCount: Int
    /// `tcp_user_timeout`: the kernel drops the connection when data it sent stays unacknowledged this long.
    public var tcpUserTimeout: Duration

    /// The defaults follow `call` (2 s): a dispatch caught by a freeze is answered within two calls (4 s), under the
    /// 5 s the server promises; a batch or takeover on a healthy database takes milliseconds.
    public init(call: Duration = .seconds(2)) {
        self.call = call
        idleInTransaction = max(call * 5, .seconds(10))
        keepaliveIdle = max(call, .seconds(1))
        keepaliveInterval = .seconds(1)
        keepaliveCount = 3
        tcpUserTimeout = max(call, .seconds(1))
    }

    /// The same settings with a longer call deadline, for the schema migration at start.
    func lenient(_ call: Duration) -> PostgresTimeouts {
        var timeouts = self
        timeouts.call = max(self.call, call)
        return timeouts
    }

    /// The libpq connection keywords and values these timeouts set (a URL's own values win over them).
    var connectionParameters: [(String, String)] {
        let seconds = { (duration: Duration) in "\(max(Int(duration.components.seconds), 1))" }
        return [
            ("connect_timeout", seconds(call)),
            ("keepalives", "1"),
            ("keepalives_idle", seconds(keepaliveIdle)),
            ("keepalives_interval", seconds(keepaliveInterval)),
            ("keepalives_count", "\(max(keepaliveCount, 1))"),
            ("tcp_user_timeout", "\(Self.milliseconds(tcpUserTimeout))"),
            (
                "options",
                "-c statement_timeout=\(Self.milliseconds(call)) -c lock_timeout=\(Self.milliseconds(call))"
                    + " -c idle_in_transaction_session_timeout=\(Self.milliseconds(idleInTransaction))"
            ),
        ]
    }

    /// Whole milliseconds, at least 1.
    public static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000), 1)
    }
}

/// When a call must be over, on the monotonic clock.
struct Deadline {
    private let end: ContinuousClock.Instant

    /// `duration` from now.
    init(after duration: Duration) { end = .now + duration }

    /// Whole milliseconds left, rounded up; 0 or less once passed.
    var remainingMilliseconds: Int {
        let left = ContinuousClock.now.duration(to: end)
        guard left > .zero else { return 0 }
        return PostgresTimeouts.milliseconds(left)
    }
}
