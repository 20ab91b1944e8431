import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Listens on a connection and thread of its own for the notices other nodes send on one channel: the
/// takeovers they announce (`remvvm_sessions`, so a node lets go of a session it lost within a second
/// instead of at its next write) or the topics they append to (`remvvm_topics`). Hints only: the fence
/// decides who holds a session, and the topic log what a topic holds.
///
/// Waits on the connection's socket with a timeout (so ``stop()`` is seen within a quarter of a
/// second), and connects again, after a pause, when the connection is lost.
final class NotificationListener: Sendable {
    private let url: String
    private let node: String
    private let channel: String
    /// The end of the connection's application name (tests find the listeners by it).
    private let role: String
    private let logger: Logger
    private let timeouts: PostgresTimeouts
    private let connected: @Sendable () -> Void
    private let handler: @Sendable (_ payload: String) -> Void
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// How long one wait on the socket lasts, in milliseconds: how late ``stop()`` is seen.
    private static let waitMilliseconds: Int32 = 250
    /// The pause before connecting again after a failure.
    private static let reconnectPause: Duration = .seconds(1)

    /// Listens on `channel` on a connection named `remvvm-server <node> <role>`; `connected` runs each time the listener (re)connects, after its LISTEN (notices
    /// sent while it was away are lost), `handler` with each notice's payload.
    init(
        url: String, node: String, channel: String, role: String, logger: Logger,
        timeouts: PostgresTimeouts = PostgresTimeouts(),
        connected: @escaping @Sendable () -> Void = {},
        handler: @escaping @Sendable (_ payload: String) -> Void
    ) {
        self.url = url
        self.node = node
        self.channel = channel
        self.role = role
        self.logger = logger
        self.timeouts = timeouts
        self.connected = connected
        self.handler = handler
    }

    /// Starts the listening thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "remvvm.\(channel)"
        thread.start()
    }

    /// Stops the thread and closes its connection; waits for it at most a second. Idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if finished.wait(timeout: .now() + .seconds(1)) == .timedOut {
            logger.warning("the listener on \(channel) did not stop within a second")
        }
    }

    private func run() {
        var connection: PostgresConnection?
        var failures = 0
        while !stopped.load(ordering: .acquiring) {
            guard let open = connection, open.isOpen else {
                connection?.close()
                connection = nil
                do throws(PostgresError) {
                    let fresh = try PostgresConnection(
                        url: url, applicationName: "remvvm-server \(node) \(role)", timeouts: timeouts)
                    try fresh.execute("LISTEN \(channel)")
                    connection = fresh
                    failures = 0
                    connected()
                } catch {
                    if failures == 0 {
                        logger.warning(
                            "cannot listen on \(channel); retrying (the database still decides)",
                            metadata: ["error": "\(error)"])
                    }
                    failures += 1
                    pause()
                }
                continue
            }
            var descriptor = pollfd(fd: open.socket, events: Int16(POLLIN), revents: 0)
            // Read after a timeout too: a notice that came with an earlier answer waits in libpq's queue.
            _ = poll(&descriptor, 1, Self.waitMilliseconds)
            do throws(PostgresError) {
                for notification in try open.notifications() where notification.channel == channel {
                    handler(notification.payload)
                }
            } catch {
                logger.info(
                    "lost the connection listening on \(channel); connecting again", metadata: ["error": "\(error)"])
                open.close()
                connection = nil
            }
        }
        connection?.close()
        finished.signal()
    }

    /// Waits ``reconnectPause``, in steps short enough to see ``stop()``.
    private func pause() {
        let deadline = ContinuousClock.now + Self.reconnectPause
        while !stopped.load(ordering: .acquiring), ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: -1, events: 0, revents: 0)
            _ = poll(&descriptor, 0, Self.waitMilliseconds)
        }
    }
}
