import CMicroHTTPD
import Glibc
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd that hands complete requests to an ``HTTPHandler``.
///
/// It runs worker threads of its own (``HTTPServerConfiguration/threadPoolSize``), each driving one libmicrohttpd
/// daemon's epoll loop on the shared listening socket, with suspend/resume, so requests answered later (long-poll)
/// and idle event streams park their connections without holding a thread. A server is single-use: ``start()``
/// once, ``stop(answeringPendingWith:)`` once (further calls do nothing).
public final class HTTPServer: Sendable {
    private enum Lifecycle: Sendable {
        case idle
        case running([WorkerLoop])
        case stopping
        case stopped
    }

    private let core: ServerCore
    private let lifecycle = Mutex(Lifecycle.idle)
    private let boundPort = Atomic<UInt16>(0)
    private let pinnedCPUs = Mutex<[Int]>([])

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
            let configuration = core.configuration
            let address = try DaemonStarter.validate(configuration)
            // libmicrohttpd suppresses SIGPIPE on its sockets, but sendfile and foreign sockets can still raise it.
            signal(SIGPIPE, SIG_IGN)
            let (listening, port) = try DaemonStarter.listen(configuration, address: address)
            let count = min(configuration.threadPoolSize, configuration.connectionLimit)
            let cpus = configuration.tuning.pinsWorkers ? CPUSet.allowedCPUs() : []
            var workers: [WorkerLoop] = []
            do throws(HTTPServerError) {
                for index in 0..<count {
                    let limit = DaemonStarter.connectionLimit(configuration, worker: index, of: count)
                    guard let worker = WorkerLoop(core: core, index: index, connectionLimit: limit) else {
                        throw HTTPServerError.startFailed.with("the kernel refused an epoll set or an eventfd")
                    }
                    // Each daemon owns (and closes) a descriptor of its own for the shared socket.
                    let descriptor = index == 0 ? listening : dup(listening)
                    guard descriptor >= 0 else {
                        throw HTTPServerError.startFailed.with("cannot duplicate the listening socket")
                    }
                    let daemon: OpaquePointer
                    do throws(HTTPServerError) {
                        daemon = try DaemonStarter.start(
                            configuration, listening: descriptor,
                            connectionLimit: limit,
                            closure: worker.callbackClosure)
                    } catch {
                        if index > 0 { close(descriptor) }  // The first is `listening`, closed below.
                        throw error
                    }
                    workers.append(worker)
                    guard worker.start(daemon: daemon, pinnedTo: cpus.isEmpty ? nil : cpus[index % cpus.count])
                    else {
                        throw HTTPServerError.startFailed.with("cannot start worker thread \(index)")
                    }
                }
            } catch {
                // Nothing was served yet: stop what started; start() may be retried.
                for worker in workers { worker.stopLoop() }
                for worker in workers { worker.stopDaemon() }
                if workers.isEmpty { close(listening) }
                throw error
            }
            // Sockets parked before the thread runs are already in its epoll set and are reported once it does.
            if let watcher = core.watcher, !watcher.start() {
                core.report("could not start the disconnect watcher thread; parked clients are not watched")
                watcher.stop()
            }
            pinnedCPUs.withLock { $0 = cpus.isEmpty ? [] : (0..<count).map { cpus[$0 % cpus.count] } }
            boundPort.store(port, ordering: .releasing)
            lifecycle = .running(workers)
        }
    }

    /// The bound port, useful after binding port 0; 0 before ``start()``.
    public var port: UInt16 {
        boundPort.load(ordering: .acquiring)
    }

    /// Whether answers are sent per worker pass (``TransportTuning/batchesAnswers``).
    package var batchesAnswers: Bool {
        core.configuration.tuning.batchesAnswers
    }

    /// Whether a worker releases a pass's held answers in one system call
    /// (``TransportTuning/releasesAnswersInOneCall``): configured so, answers are batched, and this kernel and
    /// process allow io_uring's socket commands.
    package var releasesAnswersInOneCall: Bool {
        core.releasesAnswersInOneCall
    }

    /// The CPU each worker thread is pinned to, by worker (``TransportTuning/pinsWorkers``); empty when workers
    /// are not pinned.
    package var workerCPUs: [Int] {
        pinnedCPUs.withLock { $0 }
    }

    /// How many worker threads run; 0 when not running.
    public var workerCount: Int {
        lifecycle.withLock { lifecycle in
            guard case .running(let workers) = lifecycle else { return 0 }
            return workers.count
        }
    }

    /// Connections currently parked (suspended): unanswered requests plus idle streams. A metrics gauge.
    public var suspendedConnections: Int {
        core.suspendedCount
    }

    /// What the transport refused or cut on its own since the server started (per-address connection limit,
    /// request deadlines, conflicting `Content-Length`, oversized bodies, stream budget), and the bytes event
    /// streams hold unsent now: for a metrics endpoint. Atomic loads, no lock.
    public var statistics: TransportStatistics {
        core.counters.snapshot(streams: core.streamBudget)
    }

    /// Whether all event streams together hold fewer unsent bytes than
    /// ``HTTPServerConfiguration/streamBufferBudget``. When they do not, the transport answers a new stream's
    /// response 503 with `Retry-After` by itself; a handler may ask first to answer in its own words.
    public var hasStreamBudget: Bool {
        !core.streamBudget.isExhausted
    }

    /// Connections the workers' daemons hold, parked and idle keep-alive ones included; 0 when not running.
    public var openConnections: Int {
        lifecycle.withLock { lifecycle in
            guard case .running(let workers) = lifecycle else { return 0 }
            return workers.reduce(0) { $0 + $1.openConnections }
        }
    }

    /// Starts draining: the server stops accepting connections (the kernel refuses new ones, so a reverse proxy
    /// sends them to another server at once, nothing having been sent; those the kernel had completed already are
    /// taken over by the workers, not reset), and every answer from now on closes its connection, so that a client
    /// sends no further request on it. Requests on the connections already open are still handled. A keep-alive
    /// connection idle between requests is closed by the server within 1 s (libmicrohttpd's shortest inactivity
    /// timeout; at once if it was idle that long), so that its client sees the close while the connection is idle
    /// rather than when ``stop(answeringPendingWith:)`` cuts it, possibly just as a request arrives on it. Then
    /// waits at most `grace` until no open connection is idle or busy (every one left is parked). Returns whether
    /// they all went within `grace`.
    @discardableResult
    public func drain(grace: Duration) -> Bool {
        let running: [WorkerLoop]? = lifecycle.withLock { lifecycle in
            guard case .running(let workers) = lifecycle else { return nil }
            return workers
        }
        guard let running else { return true }
        core.closeConnectionsAfterAnswers()
        for worker in running { worker.stopAccepting() }
        if !waitUntil(deadline: .seconds(1), { running.allSatisfy(\.hasStoppedAccepting) }) {
            core.report("a worker did not stop accepting connections within 1 s")
        }
        return waitUntil(deadline: grace) { openConnections <= core.suspendedCount }
    }

    /// Stops the server gracefully and returns when it is fully stopped.
    ///
    /// It answers every still-unanswered request (and every request arriving from now on, without calling the
    /// handler) with `fallback`, finishes every open stream, waits up to
    /// ``HTTPServerConfiguration/stopGracePeriod`` for those answers to go out, then closes all connections and
    /// stops the worker threads. Termination handlers have all run when it returns. Idempotent. Never call
    /// it from inside ``HTTPHandler/handle(_:responder:)`` or a termination handler: it joins the worker threads.
    public func stop(answeringPendingWith fallback: HTTPResponse = .serverStopping) {
        let running: [WorkerLoop]? = lifecycle.withLock { lifecycle in
            guard case .running(let workers) = lifecycle else { return nil }
            lifecycle = .stopping
            return workers
        }
        guard let running else {
            waitUntilStopped()
            return
        }
        // From here on every new request gets `fallback` without reaching the handler, and the listening socket
        // closes with the last daemon.
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
        // Every suspended connection was resumed above. The loops stop first, so no worker runs its daemon while
        // another thread stops it; a resume arriving after its worker's loop stopped is made by its caller.
        for worker in running { worker.stopLoop() }
        for worker in running { worker.stopDaemon() }
        core.watcher?.stop()
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
