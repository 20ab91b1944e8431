import CMicroHTTPD
import CWorkerAffinity
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands complete requests to an ``HTTPHandler``.
///
/// It runs libmicrohttpd's worker threads (epoll, one loop per thread) with suspend/resume, so requests
/// answered later (long-poll) and idle event streams park their connections without holding a thread. A
/// server is single-use: ``start()`` once, ``stop(answeringPendingWith:)`` once (further calls do nothing).
public final class HTTPServer: Sendable {
    private enum Lifecycle: Sendable {
        case idle
        case running(Daemon)
        case stopping
        case stopped
    }

    /// The running daemon and the reference libmicrohttpd holds on the core.
    // Safety: the daemon pointer is only used under the lifecycle lock while running, and by the one `stop`
    // call that moved the lifecycle out of `.running`; the core reference is released exactly once, after
    // `MHD_stop_daemon` returned.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
        let core: Unmanaged<ServerCore>
    }

    private let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)
    private let boundPort = Atomic<UInt16>(0)

    /// Creates a server; nothing is bound until ``start()``.
    public init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        core = ServerCore(configuration: configuration, handler: handler)
    }

    deinit {
        stop()
    }

    /// Binds and starts serving; throws ``HTTPServerError`` with a message naming the cause (port in use, bad
    /// host, invalid limits).
    public func start() throws(HTTPServerError) {
        try lifecycle.withLock { (lifecycle: inout Lifecycle) throws(HTTPServerError) in
            guard case .idle = lifecycle else {
                throw HTTPServerError.alreadyStarted.with("start() called on a server that was already started")
            }
            let address = try DaemonStarter.validate(core.configuration)
            // libmicrohttpd suppresses SIGPIPE on its sockets, but sendfile and foreign sockets can still raise it.
            signal(SIGPIPE, SIG_IGN)
            let retained = Unmanaged.passRetained(core)
            let daemon: OpaquePointer
            do throws(HTTPServerError) {
                daemon = try DaemonStarter.start(
                    core.configuration, address: address, core: retained.toOpaque(),
                    pinsWorkers: !core.workerCPUs.isEmpty)
            } catch {
                retained.release()
                throw error  // Nothing else was set up: start() may be retried.
            }
            // Sockets parked before the thread runs are already in its epoll set and are reported once it does.
            if let watcher = core.watcher, !watcher.start() {
                core.report("could not start the disconnect watcher thread; parked clients are not watched")
                watcher.stop()
            }
            if core.configuration.batchesAnswers, !core.batchesAnswers {
                core.report("this executable does not route epoll_wait through the transport; answers are not batched")
            }
            if !core.workerCPUs.isEmpty, worker_affinity_unpins_children() == 0 {
                core.report("pthread_create bypasses the transport's wrapper; pinned workers' threads keep their CPU")
            }
            if core.resumer != nil, !core.startResuming() {
                core.report("could not start the resume thread; parked connections are resumed by their answerer")
            }
            boundPort.store(cmhd_daemon_bind_port(daemon), ordering: .releasing)
            lifecycle = .running(Daemon(pointer: daemon, core: retained))
        }
    }

    /// The bound port, useful after binding port 0; 0 before ``start()``.
    public var port: UInt16 {
        boundPort.load(ordering: .acquiring)
    }

    /// Whether answers are sent per worker pass (``HTTPServerConfiguration/batchesAnswers``): configured so,
    /// and this process's `epoll_wait` is the transport's hook, which the executable must not replace.
    public var batchesAnswers: Bool {
        core.batchesAnswers
    }

    /// Whether a worker releases a pass's held answers in one system call
    /// (``HTTPServerConfiguration/releasesAnswersInOneCall``): configured so, answers are batched, and this
    /// kernel and process allow io_uring's socket commands.
    public var releasesAnswersInOneCall: Bool {
        core.releasesAnswersInOneCall
    }

    /// The CPUs the worker threads are pinned to (``HTTPServerConfiguration/pinsWorkers``), in the order
    /// workers take them as each accepts its first connection; empty when workers are not pinned.
    public var workerCPUs: [Int] {
        core.workerCPUs
    }

    /// Connections currently parked (suspended): unanswered requests plus idle streams. A metrics gauge.
    public var suspendedConnections: Int {
        core.suspendedCount
    }

    /// Connections the daemon holds, parked and idle keep-alive ones included; 0 when not running.
    public var openConnections: Int {
        lifecycle.withLock { lifecycle in
            guard case .running(let daemon) = lifecycle else { return 0 }
            return Int(cmhd_daemon_current_connections(daemon.pointer))
        }
    }

    /// Stops the server gracefully and returns when it is fully stopped.
    ///
    /// It answers every still-unanswered request (and every request arriving from now on, without calling the
    /// handler) with `fallback`, finishes every open stream, waits up to
    /// ``HTTPServerConfiguration/stopGracePeriod`` for those answers to go out, then closes all connections and
    /// stops libmicrohttpd's threads. Termination handlers have all run when it returns. Idempotent. Never call
    /// it from inside ``HTTPHandler/handle(_:responder:)`` or a termination handler: it joins the worker threads.
    public func stop(answeringPendingWith fallback: HTTPResponse = .serverStopping) {
        let running: Daemon? = lifecycle.withLock { lifecycle in
            guard case .running(let daemon) = lifecycle else { return nil }
            lifecycle = .stopping
            return daemon
        }
        guard let running else {
            waitUntilStopped()
            return
        }
        // No MHD_quiesce_daemon: in 0.9.75 with a thread pool it races with a worker that drops the listening
        // socket from its epoll set at the connection limit, and either side then aborts the process. Instead,
        // from here on every new request gets `fallback` without reaching the handler, and the listening socket
        // closes with MHD_stop_daemon.
        let pending = core.beginStopping(fallback: fallback)
        for responder in pending.parked {
            responder.respond(fallback)
        }
        for stream in pending.streams {
            stream.finish()
        }
        // libmicrohttpd aborts the process if it is stopped with a suspended connection. Everything parked has
        // just been resumed and nothing parks while stopping, so this converges at once; if it somehow did not,
        // leaking the daemon is better than crashing.
        guard waitUntil(deadline: .seconds(5), { core.suspendedCount == 0 }) else {
            core.report("\(core.suspendedCount) connections stayed suspended; libmicrohttpd left running")
            lifecycle.withLock { $0 = .stopped }
            return
        }
        _ = waitUntil(deadline: core.configuration.stopGracePeriod) { !core.hasPendingExchanges }
        // Every suspended connection was resumed above; stopping the resume thread while the daemon still runs
        // means none of its calls can reach a freed connection, and any late resume is made by its caller.
        core.resumer?.stop()
        MHD_stop_daemon(running.pointer)
        core.watcher?.stop()
        running.core.release()
        lifecycle.withLock { $0 = .stopped }
    }

    private func waitUntilStopped() {
        while true {
            let stopping = lifecycle.withLock { lifecycle -> Bool in
                if case .stopping = lifecycle { return true }
                return false
            }
            guard stopping else { return }
            usleep(1_000)
        }
    }

    /// Polls `condition` every millisecond until it holds or `deadline` passed; returns whether it held.
    private func waitUntil(deadline: Duration, _ condition: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: deadline)
        while !condition() {
            guard clock.now < end else { return false }
            usleep(1_000)
        }
        return true
    }
}
