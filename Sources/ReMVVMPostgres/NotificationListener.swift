import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Listens on a connection and thread of its own for the takeovers other nodes announce
/// (`NOTIFY remvvm_sessions`, payload `<session id> <new owner> <fence>`), so a node lets go of a session
/// it lost within a second instead of at its next write. A hint only: the fence decides.
///
/// Waits on the connection's socket with a timeout (so ``stop()`` is seen within a quarter of a
/// second), and connects again, after a pause, when the connection is lost.
final class TakeoverListener: Sendable {
    private let url: String
    private let node: String
    private let logger: Logger
    private let handler: @Sendable (_ session: String, _ owner: String, _ fence: Int64) -> Void
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// How long one wait on the socket lasts, in milliseconds: how late ``stop()`` is seen.
    private static let waitMilliseconds: Int32 = 250
    /// The pause before connecting again after a failure.
    private static let reconnectPause: Duration = .seconds(1)

    init(
        url: String, node: String, logger: Logger,
        handler: @escaping @Sendable (_ session: String, _ owner: String, _ fence: Int64) -> Void
    ) {
        self.url = url
        self.node = node
        self.logger = logger
        self.handler = handler
    }

    /// Starts the listening thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "remvvm.takeovers"
        thread.start()
    }

    /// Stops the thread and closes its connection; waits for it at most a second. Idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if finished.wait(timeout: .now() + .seconds(1)) == .timedOut {
            logger.warning("the takeover listener did not stop within a second")
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
                        url: url, applicationName: "remvvm-server \(node) listener")
                    try fresh.execute("LISTEN \(PostgresSessionStorage.takeoverChannel)")
                    connection = fresh
                    failures = 0
                } catch {
                    if failures == 0 {
                        logger.warning(
                            "cannot listen for takeovers; retrying (writes are still fenced)",
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
                for notification in try open.notifications()
                where notification.channel == PostgresSessionStorage.takeoverChannel {
                    let parts = notification.payload.split(separator: " ")
                    guard parts.count == 3, let fence = Int64(parts[2]) else { continue }
                    handler(String(parts[0]), String(parts[1]), fence)
                }
            } catch {
                logger.info(
                    "lost the takeover listener's connection; connecting again", metadata: ["error": "\(error)"])
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
