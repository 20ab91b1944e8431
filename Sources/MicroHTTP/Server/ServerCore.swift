import CAnswerBatching
import CMicroHTTPD
import CWorkerAffinity
import Synchronization

/// The state a running server shares with libmicrohttpd's callbacks.
///
/// libmicrohttpd gets a retained pointer to it as the access handler's and completion callback's closure, so
/// it outlives every callback; ``HTTPServer`` releases that reference only after `MHD_stop_daemon` returned.
final class ServerCore: Sendable {
    /// Exchanges that may hold a suspended connection, so that `stop` can answer and resume them.
    private struct Registry: Sendable {
        var stoppingFallback: HTTPResponse?
        /// Found again by the handle each responder keeps (``RequestContext/registration``): no hash per request.
        var parked = SlotTable<Responder>()
        var streams: [ObjectIdentifier: ResponseStream] = [:]
    }

    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let watcher: DisconnectWatcher?
    /// Resumes parked connections in batches (see ``ResumeQueue``); `nil` resumes on the caller's thread.
    let resumer: ResumeQueue?
    /// Whether answers given during `handle` are held until the worker's pass ends (see
    /// ``HTTPServerConfiguration/batchesAnswers``): asked for, and the epoll_wait hook is in place.
    let batchesAnswers: Bool
    /// Whether a worker releases a pass's held answers in one system call (see
    /// ``HTTPServerConfiguration/releasesAnswersInOneCall``): asked for, batching, and the kernel allows it.
    let releasesAnswersInOneCall: Bool
    /// The CPUs workers are pinned to, taken in turn (see ``HTTPServerConfiguration/pinsWorkers``); empty
    /// when they are not pinned.
    let workerCPUs: [Int]
    private let pinnedWorkers = Atomic<Int>(0)
    private let registry = Mutex(Registry())
    private let suspended = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        watcher = configuration.detectsDisconnectedParkedClients ? DisconnectWatcher() : nil
        resumer = ResumeQueue()
        batchesAnswers = configuration.batchesAnswers && answer_batching_is_active() != 0
        releasesAnswersInOneCall =
            batchesAnswers && configuration.releasesAnswersInOneCall
            && answer_batching_can_release_in_one_call() != 0
        workerCPUs = configuration.pinsWorkers ? WorkerAffinity.allowedCPUs() : []
    }

    /// Pins the calling worker to the next CPU in ``workerCPUs``, the first time it runs this; must run on a
    /// libmicrohttpd worker thread.
    func pinCurrentWorker() {
        guard !workerCPUs.isEmpty, worker_affinity_pin_attempted() == 0 else { return }  // Tried once per thread.
        let turn = pinnedWorkers.wrappingAdd(1, ordering: .relaxed).oldValue
        let cpu = workerCPUs[turn % workerCPUs.count]
        let error = worker_affinity_pin(Int32(cpu))
        if error != 0 {
            report("could not pin a worker thread to CPU \(cpu) (error \(error)); it runs unpinned")
        }
    }

    /// Holds the answer about to be queued on `connection` until this worker's pass ends; must run inside a
    /// libmicrohttpd callback for it, on its worker thread.
    func holdAnswer(on connection: ConnectionHandle) {
        guard batchesAnswers else { return }
        _ = answer_batching_hold(cmhd_connection_socket(connection.pointer), releasesAnswersInOneCall ? 1 : 0)
    }

    /// Starts resuming parked connections on the resume thread; while it runs, the thread retains `self`.
    ///
    /// Each batch costs every worker it touches a walk of its whole suspended list (see ``ResumeQueue``), so
    /// the more connections are parked, the more answers should share one walk, each waiting at most
    /// ``HTTPServerConfiguration/maxResumeDelay`` (see ``ResumePacing/server(suspended:maxDelay:)``). Within a
    /// batch, the workers' wake-ups wait until every connection of the batch is marked (`resume_wakeups.h`):
    /// one system call per worker instead of one per connection, and no worker walks a half-marked batch.
    func startResuming() -> Bool {
        resumer?.start(
            pacing: { [self] in Self.resumePacing(configuration, suspended: suspendedCount) },
            batchBegins: { resume_wakeups_defer() },
            batchEnds: { _ = resume_wakeups_flush() }
        ) { [self] connection in resumeNow(connection) } ?? false
    }

    /// How the resume thread spaces its batches under `configuration` with `suspended` connections parked.
    static func resumePacing(_ configuration: HTTPServerConfiguration, suspended: Int) -> ResumePacing {
        .server(suspended: suspended, maxDelay: MonotonicClock.nanoseconds(of: configuration.maxResumeDelay))
    }

    /// Connections currently suspended (parked requests and idle streams).
    var suspendedCount: Int { suspended.load(ordering: .acquiring) }

    /// Whether any parked request or attached stream has yet to end.
    var hasPendingExchanges: Bool {
        registry.withLock { !$0.parked.isEmpty || !$0.streams.isEmpty }
    }

    /// The answer for requests while the server stops, `nil` while it runs.
    var stoppingFallback: HTTPResponse? {
        guard stopping.load(ordering: .acquiring) else { return nil }
        return registry.withLock { $0.stoppingFallback }
    }

    /// Reports a problem the transport handled on its own.
    func report(_ message: String) {
        configuration.diagnostics?(message)
    }

    // MARK: - Suspend and resume

    /// Suspends `connection` and starts watching its socket; must run inside a libmicrohttpd callback for it.
    func park(_ connection: ConnectionHandle, watchedBy client: any ParkedClient) -> Parking {
        suspended.add(1, ordering: .acquiringAndReleasing)
        MHD_suspend_connection(connection.pointer)
        var token: UInt64?
        if let watcher {
            let socket = cmhd_connection_socket(connection.pointer)
            token = socket >= 0 ? watcher.watch(socket: socket, client: client) : nil
        }
        return Parking(connection: connection, watchToken: token)
    }

    /// Resumes a connection `park` suspended; callable from any thread, exactly once per parking.
    ///
    /// The connection counts as suspended until libmicrohttpd was told, so `stop` waits for queued resumes.
    func resume(_ parking: Parking) {
        if let token = parking.watchToken {
            watcher?.unwatch(token: token)
        }
        if resumer?.add(parking.connection) == true { return }
        resumeNow(parking.connection)
    }

    private func resumeNow(_ connection: ConnectionHandle) {
        MHD_resume_connection(connection.pointer)
        suspended.subtract(1, ordering: .acquiringAndReleasing)
    }

    // MARK: - Registry

    /// Records a request about to park: its registration, for ``unregisterParked(_:)``, or the stopping fallback
    /// to answer with instead when the server is stopping.
    func registerParked(_ responder: Responder) -> ParkedRegistration {
        registry.withLock { registry in
            if let fallback = registry.stoppingFallback { return .stopping(fallback) }
            return .registered(registry.parked.insert(responder))
        }
    }

    /// What ``registerParked(_:)`` did.
    enum ParkedRegistration {
        /// Registered under this handle.
        case registered(UInt64)
        /// Not registered: the server is stopping, and the request gets this answer instead.
        case stopping(HTTPResponse)
    }

    /// Forgets a parked request once it ended, by the registration ``registerParked(_:)`` returned.
    func unregisterParked(_ registration: UInt64) {
        _ = registry.withLock { $0.parked.remove(registration) }
    }

    /// Records a stream about to be sent; `false` when the server is stopping (the stream must finish).
    func registerStream(_ stream: ResponseStream) -> Bool {
        registry.withLock { registry in
            guard registry.stoppingFallback == nil else { return false }
            registry.streams[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    /// Forgets a stream once its response is gone.
    func unregisterStream(_ stream: ResponseStream) {
        _ = registry.withLock { $0.streams.removeValue(forKey: ObjectIdentifier(stream)) }
    }

    /// Switches to stopping and returns everything that may be parked, to be answered and finished.
    func beginStopping(fallback: HTTPResponse) -> (parked: [Responder], streams: [ResponseStream]) {
        let snapshot = registry.withLock { registry in
            registry.stoppingFallback = fallback
            return (parked: registry.parked.elements, streams: Array(registry.streams.values))
        }
        stopping.store(true, ordering: .releasing)
        return snapshot
    }
}
