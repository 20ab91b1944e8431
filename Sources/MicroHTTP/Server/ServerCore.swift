import CMicroHTTPD
import CTransport
import Glibc
import Synchronization

/// The state a running server shares with libmicrohttpd's callbacks on every worker.
///
/// Each worker (``WorkerLoop``) holds it, and libmicrohttpd gets the worker as every callback's closure, so it
/// outlives every callback; ``HTTPServer`` drops the workers only after their daemons stopped.
final class ServerCore: Sendable {
    /// Exchanges that may hold a suspended connection, so that `stop` can answer and resume them.
    private struct Registry: Sendable {
        var stoppingFallback: HTTPResponse?
        /// Found again by the handle each responder keeps (``Responder/registration``): no hash per request.
        var parked = SlotTable<Responder>()
        var streams: [ObjectIdentifier: ResponseStream] = [:]
    }

    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let watcher: DisconnectWatcher?
    /// Whether a worker releases a pass's held answers in one system call (see
    /// ``TransportTuning/releasesAnswersInOneCall``): asked for, batching, and the kernel allows it.
    let releasesAnswersInOneCall: Bool
    /// Connections per client address, when ``HTTPServerConfiguration/perClientConnectionLimit`` is set.
    private let clients = Mutex<[UInt32: Int]>([:])
    /// ``HTTPServerConfiguration/trustedProxies``, exempt from the per-client limit.
    let trustedProxies: ProxyList
    /// What the transport refused, for ``HTTPServer/statistics``.
    let counters = TransportCounters()
    /// All streams' unsent bytes against ``HTTPServerConfiguration/streamBufferBudget``.
    let streamBudget: StreamBudget
    private let registry = Mutex(Registry())
    private let suspended = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    /// Set when the server drains: every answer from then on closes its connection.
    private let closing = Atomic<Bool>(false)

    init(configuration: HTTPServerConfiguration, handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
        trustedProxies = ProxyList(configuration.trustedProxies)
        streamBudget = StreamBudget(limit: configuration.streamBufferBudget, counters: counters)
        watcher = configuration.detectsDisconnectedParkedClients ? DisconnectWatcher() : nil
        releasesAnswersInOneCall =
            configuration.tuning.batchesAnswers && configuration.tuning.releasesAnswersInOneCall
            && remvvm_uncork_ring_is_usable() != 0
    }

    /// Holds the answer about to be queued on `connection` until its worker's pass ends; must run inside a
    /// libmicrohttpd callback for it, on its worker thread.
    func holdAnswer(on connection: ConnectionHandle) {
        guard configuration.tuning.batchesAnswers else { return }
        connection.worker.holdAnswer(socket: cmhd_connection_socket(connection.pointer))
    }

    /// libmicrohttpd is about to write on `connection` during this pass: pushed when the pass ends if its socket
    /// is corked. Must run inside a libmicrohttpd callback for it.
    func willWrite(on connection: ConnectionHandle) {
        guard configuration.tuning.batchesAnswers else { return }
        connection.worker.willWrite(socket: cmhd_connection_socket(connection.pointer))
    }

    /// What `connection` sends from now on goes out at once (it parks, or streams). Must run inside a
    /// libmicrohttpd callback for it.
    func uncork(_ connection: ConnectionHandle) {
        guard configuration.tuning.batchesAnswers else { return }
        connection.worker.uncork(socket: cmhd_connection_socket(connection.pointer))
    }

    // MARK: - Connections

    /// A worker's daemon opened `connection`: counts it against its client's limit (trusted proxies are not
    /// counted), and when over it writes a 429 problem straight to the new socket and shuts it down, so
    /// libmicrohttpd closes it at once: the connection never holds a place. Returns the client it counted, to pass
    /// to ``connectionClosed``.
    ///
    /// The answer goes out before the client's request is read (it is the same for any request): one
    /// non-blocking `send` of a few hundred bytes to an empty socket buffer, cheaper than keeping the connection
    /// to read a head first, which a slow client could stretch to ``HTTPServerConfiguration/requestHeadTimeout``.
    /// A client whose request arrives after the close may see a reset instead.
    func connectionOpened(_ handle: ConnectionHandle) -> UInt32? {
        let limit = configuration.perClientConnectionLimit
        guard limit > 0, let address = cmhd_connection_client_address(handle.pointer),
            address.pointee.sa_family == sa_family_t(AF_INET)
        else { return nil }
        let client = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
        guard !trustedProxies.contains(sAddr: client) else { return nil }
        let count = clients.withLock { clients -> Int in
            clients[client, default: 0] += 1
            return clients[client, default: 0]
        }
        if count > limit {
            counters.connectionsOverClientLimit.add(1, ordering: .relaxed)
            DirectAnswer.send(.tooManyConnections(limit: limit), on: handle)
        }
        return client
    }

    /// A connection ``connectionOpened`` counted for `client` closed.
    func connectionClosed(client: UInt32) {
        clients.withLock { clients in
            let left = clients[client, default: 1] - 1
            clients[client] = left > 0 ? left : nil
        }
    }

    /// Whether every answer closes its connection (`Connection: close`): the server is draining. An atomic load.
    var closesConnections: Bool { closing.load(ordering: .relaxed) }

    /// From now on every answer closes its connection, so that a client (a reverse proxy's keep-alive pool) sends
    /// no further request on it.
    func closeConnectionsAfterAnswers() {
        closing.store(true, ordering: .relaxed)
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
        connection.worker.didPark()
        uncork(connection)
        MHD_suspend_connection(connection.pointer)
        var token: UInt64?
        if let watcher {
            let socket = cmhd_connection_socket(connection.pointer)
            token = socket >= 0 ? watcher.watch(socket: socket, client: client) : nil
        }
        return Parking(connection: connection, watchToken: token)
    }

    /// Resumes a connection `park` suspended; callable from any thread, exactly once per parking. The
    /// connection's worker resumes it before its next pass.
    ///
    /// The connection counts as suspended until libmicrohttpd was told, so `stop` waits for queued resumes.
    func resume(_ parking: Parking) {
        if let token = parking.watchToken {
            watcher?.unwatch(token: token)
        }
        guard !parking.connection.worker.queueResume(parking.connection) else { return }
        // The worker's loop has stopped (the server is stopping, its daemon not yet): libmicrohttpd takes a
        // resume from any thread, and its stop closes the connection.
        MHD_resume_connection(parking.connection.pointer)
        didResume()
        parking.connection.worker.didResume()
    }

    /// A worker told libmicrohttpd to resume a suspended connection.
    func didResume() {
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
