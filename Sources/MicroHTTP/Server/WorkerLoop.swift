import CMicroHTTPD
import CTransport
import Glibc
import Synchronization

/// One worker of the transport: a thread the transport creates, running one libmicrohttpd daemon in its
/// external-epoll mode, so that the transport decides what happens around each pass.
///
/// A pass: wait on the worker's own epoll set (the daemon's epoll descriptor and a wake-up eventfd), resume the
/// connections other threads queued for this worker since the last pass, let libmicrohttpd process everything
/// ready (`MHD_run`), then release the answers its handlers gave during the pass together.
///
/// - Resumes: libmicrohttpd 0.9.7x finds resumed connections by walking its whole list of suspended ones once per
///   pass in which anything was resumed. Resuming on the worker right before `MHD_run` makes every resume queued
///   since the last pass share one walk, and the queueing thread wakes the worker only when its list goes from
///   empty to non-empty: one eventfd write per batch, not per resume. The busier the worker (the longer its
///   walks), the more resumes each walk gathers.
/// - Answers: a client holding many keep-alive connections in one loop (a reverse proxy, a load generator) is
///   woken once per pass rather than once per answer. A connection whose handler answers at once is corked
///   (`TCP_CORK`, one `setsockopt` the first time) and stays corked; the pass ends by pushing every corked socket
///   written to during it, uncorking and corking each again, all in one io_uring submission where the kernel
///   allows it, else two `setsockopt` each. A connection about to park or stream is uncorked, so that what it
///   sends later goes out at once.
final class WorkerLoop: Sendable {
    /// What other threads hand this worker.
    private struct Inbox: Sendable {
        var resumes: [ConnectionHandle] = []
        /// Queued resumes that start a batch before the pacing gap has passed (the last pacing's `enough`).
        var enough = 1
        var isStopping = false
        /// The daemon is to stop accepting connections (``stopAccepting()``) before its next pass.
        var quiesce = false
    }

    /// The sockets a worker keeps corked, and those of them answered on during the current pass.
    private struct Corks: Sendable {
        /// Corked sockets: answered by a handler once, and kept corked between passes.
        var corked: Set<Int32> = []
        /// Corked sockets written to during the current pass, pushed when it ends.
        var answered: [Int32] = []

        mutating func forget(_ socket: Int32) {
            corked.remove(socket)
            if let index = answered.firstIndex(of: socket) {
                answered.swapAt(index, answered.count - 1)
                answered.removeLast()
            }
        }
    }

    /// The running daemon.
    // Safety: the pointer is used by the worker thread between `start` and `stopLoop` (which joins it), and by
    // `stopDaemon` after that; `openConnections` only reads libmicrohttpd's connection counter.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// A connection the daemon holds (`struct MHD_Connection *`), as the key of ``connections``.
    // Safety: it is passed to libmicrohttpd only on the worker thread, while it is in ``connections``: from the
    // daemon's open notification to its close notification, which the worker thread receives while it runs the
    // daemon (and ``stopDaemon()`` after the loop stopped, when nothing else uses the set).
    struct OpenConnection: @unchecked Sendable, Hashable {
        let pointer: OpaquePointer
    }

    /// The epoll tokens of the two descriptors in the worker's own set.
    private static let wakeToken: UInt64 = 0
    private static let daemonToken: UInt64 = 1

    let core: ServerCore
    /// The worker's number, 0 up to the thread count.
    let index: Int
    /// The worker's share of the connection limit (its daemon's limit).
    private let connectionLimit: UInt32
    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let inbox = Mutex(Inbox())
    private let daemon = Mutex<Daemon?>(nil)
    private let thread = Mutex<OwnedThread?>(nil)
    /// The worker's corked sockets (only the worker thread touches them).
    private let corks = Mutex(Corks())
    /// Connections suspended on this worker's daemon, which its walk for resumes visits.
    private let suspended = Atomic<Int>(0)
    /// ``TransportTuning/maxResumeDelay`` in nanoseconds.
    private let maxResumeDelay: Int64
    /// Set once the daemon accepts no more connections and its descriptor of the listening socket is closed.
    private let quiesced = Atomic<Bool>(false)
    /// The connections the daemon holds, from its open notification to its close notification, with their records:
    /// a drain gives each of them the short inactivity timeout (``closeIdleConnections()``), and each pass after
    /// ``sweepInterval`` closes those late with their head or body (``closeLateConnections(now:)``). Touched
    /// on the worker thread, and by ``stopDaemon()`` once the loop stopped.
    let connections = Mutex([OpenConnection: ConnectionRecord]())
    /// The request deadlines of the configuration.
    let deadlineLimits: RequestDeadline.Limits
    /// When the current pass began (monotonic nanoseconds): the time the callbacks of the pass count deadlines
    /// from, read rather than the clock's, as they run four times per request.
    let passStart = Atomic<Int64>(0)

    /// How often a worker looks for connections past their deadline: a deadline is met within this much.
    static let sweepInterval: Int64 = 250_000_000

    /// The inactivity timeout a drain gives every open connection, in seconds: the shortest libmicrohttpd takes.
    static let drainingIdleTimeout: UInt32 = 1

    /// A worker with its epoll set and wake-up eventfd; `nil` if the kernel refuses either.
    init?(core: ServerCore, index: Int, connectionLimit: Int = Int(UInt32.max)) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wake >= 0, Self.add(wake, token: Self.wakeToken, to: epoll) else {
            if wake >= 0 { close(wake) }
            close(epoll)
            return nil
        }
        self.core = core
        self.index = index
        self.connectionLimit = UInt32(clamping: connectionLimit)
        maxResumeDelay = MonotonicClock.nanoseconds(of: core.configuration.tuning.maxResumeDelay)
        deadlineLimits = RequestDeadline.Limits(core.configuration)
        epollDescriptor = epoll
        wakeDescriptor = wake
    }

    deinit {
        close(epollDescriptor)
        close(wakeDescriptor)
    }

    private static func add(_ descriptor: Int32, token: UInt64, to epoll: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = token
        return epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
    }

    /// The closure pointer libmicrohttpd passes back to every callback of this worker's daemon; the server keeps
    /// the worker alive until its daemon has stopped.
    var callbackClosure: UnsafeMutableRawPointer {
        Unmanaged.passUnretained(self).toOpaque()
    }

    // MARK: - Lifecycle

    /// Takes `pointer`, a daemon started in external-epoll mode with ``callbackClosure``, and starts the worker
    /// thread, pinned to `cpu` when given; returns `false` if the daemon's epoll descriptor cannot be watched or
    /// the thread cannot be created (the daemon is then the caller's to stop, with ``stopDaemon()``).
    func start(daemon pointer: OpaquePointer, pinnedTo cpu: Int?) -> Bool {
        let running = Daemon(pointer: pointer)
        daemon.withLock { $0 = running }
        let daemonEpoll = cmhd_daemon_epoll_fd(pointer)
        guard daemonEpoll >= 0, Self.add(daemonEpoll, token: Self.daemonToken, to: epollDescriptor) else {
            return false
        }
        let name = "remvvm-http-\(index)"
        // While it runs, the thread holds the worker.
        guard let started = OwnedThread.start(named: name, { [self] in run(running, pinnedTo: cpu) })
        else { return false }
        thread.withLock { $0 = started }
        return true
    }

    /// Ends the worker's loop (after resuming what is queued) and waits for its thread. Idempotent.
    func stopLoop() {
        inbox.withLock { $0.isStopping = true }
        guard let running = thread.withLock({ $0.take() }) else { return }
        signal()
        running.join()
    }

    /// Asks the worker to stop accepting connections: before its next pass, its daemon leaves the listening socket
    /// (`MHD_quiesce_daemon`, on the worker thread, which alone runs the daemon) and the worker closes its
    /// descriptor of it. Once every worker did (``hasStoppedAccepting``), the socket is closed and the kernel
    /// refuses new connections, while the connections the daemon holds are still served.
    func stopAccepting() {
        inbox.withLock { $0.quiesce = true }
        signal()
    }

    /// Whether the daemon accepts no more connections (see ``stopAccepting()``).
    var hasStoppedAccepting: Bool { quiesced.load(ordering: .acquiring) }

    /// Stops the daemon (after ``stopLoop()``): libmicrohttpd closes every connection, running their callbacks on
    /// the calling thread, and the listening socket. Idempotent.
    func stopDaemon() {
        guard let stopped = daemon.withLock({ $0.take() }) else { return }
        MHD_stop_daemon(stopped.pointer)
    }

    /// Connections this worker's daemon holds, parked ones included; 0 when not running.
    var openConnections: Int {
        daemon.withLock { daemon in daemon.map { Int(cmhd_daemon_current_connections($0.pointer)) } ?? 0 }
    }

    // MARK: - Resumes

    /// Queues `connection`, suspended on this worker's daemon, to be resumed by the worker before its next pass;
    /// callable from any thread. Returns `false` once the loop stopped: the caller then resumes it itself.
    func queueResume(_ connection: ConnectionHandle) -> Bool {
        let (accepted, wakes) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.isStopping else { return (false, false) }
            inbox.resumes.append(connection)
            return (true, inbox.resumes.count == 1 || inbox.resumes.count == inbox.enough)
        }
        // The first resume of a batch wakes the worker, and so does the one that makes the batch large enough to
        // go before its gap has passed; the others join the batch it is about to take.
        if wakes { signal() }
        return accepted
    }

    /// A connection of this worker's daemon was suspended (on the worker).
    func didPark() {
        suspended.add(1, ordering: .relaxed)
    }

    /// A connection of this worker's daemon was resumed.
    func didResume() {
        suspended.subtract(1, ordering: .relaxed)
    }

    private func signal() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already as high as it goes: the worker wakes anyway.
        _ = withUnsafeBytes(of: &one) { Glibc.write(wakeDescriptor, $0.baseAddress, $0.count) }
    }

    // MARK: - Answers

    /// Holds the answer about to be queued on `socket` until this pass ends; call it on the worker thread, inside a
    /// libmicrohttpd callback for the socket's connection, before the answer is queued. The socket is corked the
    /// first time and stays corked between passes: each pass's release pushes and corks it again in one step.
    func holdAnswer(socket: Int32) {
        guard socket >= 0 else { return }
        let corksNow = corks.withLock { corks -> Bool in
            if !corks.answered.contains(socket) { corks.answered.append(socket) }  // Pipelined: already there.
            return corks.corked.insert(socket).inserted
        }
        if corksNow, remvvm_socket_cork(socket, 1) != 0 {
            corks.withLock { $0.forget(socket) }  // Not corked: nothing to release.
        }
    }

    /// libmicrohttpd is about to write something else on `socket` during this pass (an answer not given by the
    /// handler, a `100 Continue`): a corked socket is pushed when the pass ends.
    func willWrite(socket: Int32) {
        corks.withLock { corks in
            if corks.corked.contains(socket), !corks.answered.contains(socket) { corks.answered.append(socket) }
        }
    }

    /// What is written on `socket` from now on must go out at once (a parked request's later answer, a stream's
    /// chunks): uncorks it if corked, which also pushes what it holds.
    func uncork(socket: Int32) {
        let wasCorked = corks.withLock { corks -> Bool in
            guard corks.corked.contains(socket) else { return false }
            corks.forget(socket)
            return true
        }
        if wasCorked { _ = remvvm_socket_cork(socket, 0) }
    }

    /// libmicrohttpd is closing `socket` (closing sends what it holds): a socket that later takes its number must
    /// not be taken for corked.
    func forgetHeld(socket: Int32) {
        corks.withLock { $0.forget(socket) }
    }

    // MARK: - Connections

    /// The daemon opened `connection` (its open notification, on the worker thread): its first head is due.
    /// Returns its record, which the caller keeps in the connection's socket context.
    func connectionOpened(_ connection: OpaquePointer, countedClient: UInt32?) -> ConnectionRecord {
        let deadline = RequestDeadline(openedAt: passStart.load(ordering: .relaxed), limits: deadlineLimits)
        let record = ConnectionRecord(countedClient: countedClient, deadline: deadline)
        connections.withLock { $0[OpenConnection(pointer: connection)] = record }
        return record
    }

    /// The daemon is closing `connection` (its close notification): it is not touched any more.
    func connectionClosing(_ connection: OpaquePointer) {
        connections.withLock { _ = $0.removeValue(forKey: OpenConnection(pointer: connection)) }
    }

    /// Pushes every corked socket answered on during the pass that just ended, together, and corks them again.
    private func releaseHeldAnswers(_ scratch: inout [Int32]) {
        corks.withLock { swap(&scratch, &$0.answered) }
        guard !scratch.isEmpty else { return }
        let inOneCall =
            core.releasesAnswersInOneCall
            && scratch.withUnsafeBufferPointer { remvvm_uncork_ring_release($0.baseAddress, Int32($0.count), 1) } == 1
        if !inOneCall {
            for socket in scratch {
                _ = remvvm_socket_cork(socket, 0)
                _ = remvvm_socket_cork(socket, 1)
            }
        }
        scratch.removeAll(keepingCapacity: true)
    }

    // MARK: - The loop

    /// Takes the daemon off the listening socket and closes its descriptor of it (on the worker thread).
    private func leaveListeningSocket(_ daemon: Daemon) {
        guard !quiesced.load(ordering: .relaxed) else { return }
        let descriptor = MHD_quiesce_daemon(daemon.pointer)
        // The daemon no longer closes it (it was quiesced): ours to close. -1: no listening socket any more.
        if descriptor >= 0 {
            adoptWaitingConnections(on: descriptor, daemon)
            if close(descriptor) != 0 {
                core.report("worker \(index) cannot close its listening descriptor (errno \(errno))")
            }
        }
        closeIdleConnections()
        quiesced.store(true, ordering: .releasing)
    }

    /// Hands the quiesced daemon the connections the kernel completed on the listening socket that no daemon has
    /// accepted yet, right before this worker closes its descriptor of it: when the last descriptor closes, the
    /// kernel resets every connection still waiting, and its client may have sent a request on it already (to a
    /// reverse proxy, a request it may not resend). What arrives between the last accept and the close is reset
    /// still: a window of two system calls instead of a whole pass.
    private func adoptWaitingConnections(on listening: Int32, _ daemon: Daemon) {
        // libmicrohttpd made the socket non-blocking for its epoll mode; a blocking one would block here.
        guard fcntl(listening, F_GETFL) & O_NONBLOCK != 0 else { return }
        while true {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let client = withUnsafeMutablePointer(to: &address) { storage in
                storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    remvvm_accept_waiting(listening, $0, &length)
                }
            }
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // EAGAIN: nothing waits any more.
            }
            let added = withUnsafePointer(to: &address) { storage in
                storage.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon.pointer, client, $0, length)
                }
            }
            if added != MHD_Result.YES {  // libmicrohttpd closed it.
                core.report("worker \(index) could not hand a waiting connection to its daemon (errno \(errno))")
            }
        }
    }

    /// Draining (on the worker thread, the listening socket left): gives every open connection libmicrohttpd's
    /// shortest inactivity timeout (``drainingIdleTimeout``), so that the daemon itself closes each keep-alive
    /// connection idle between requests, at once if it was idle that long, else within that time. Its client (a
    /// reverse proxy's keep-alive pool) sees the close while the connection is idle and drops it, rather than
    /// sending a request on it just as the stop cuts it (a reset, and a request lost that the proxy may not
    /// resend). The others are unaffected: a parked one has no timeout while suspended, one reading a request or
    /// writing an answer is active, and every answer from now on closes its connection anyway.
    private func closeIdleConnections() {
        let open = connections.withLock { Array($0.keys) }
        for connection in open where cmhd_connection_set_timeout(connection.pointer, Self.drainingIdleTimeout) != .YES {
            core.report("worker \(index) cannot shorten a draining connection's timeout; the stop closes it")
        }
    }

    private func run(_ daemon: Daemon, pinnedTo cpu: Int?) {
        if let cpu {
            let error = remvvm_pin_calling_thread(Int32(cpu))
            if error != 0 {
                core.report("could not pin worker \(index) to CPU \(cpu) (error \(error)); it runs unpinned")
            }
        }
        var events = [epoll_event](repeating: epoll_event(), count: 2)
        var resumes: [ConnectionHandle] = []
        var released: [Int32] = []
        var lastBatch: Int64 = 0
        var paced: ResumePacing = .none
        var waiting = false  // Resumes are queued, held back by the pacing.
        var nextSweep: Int64 = 0  // When to look for connections past their deadline next.
        while true {
            var timeout: Int32 = -1
            var milliseconds: UInt64 = 0
            if MHD_get_timeout(daemon.pointer, &milliseconds) == .YES {
                timeout = Int32(clamping: milliseconds)
            }
            if cmhd_daemon_current_connections(daemon.pointer) > 0 {
                // Wake for the next deadline sweep, in whole milliseconds, rounded up.
                let untilSweep = max(nextSweep &- MonotonicClock.nanoseconds(), 0)
                let sweepWait = Int32(clamping: (untilSweep + 999_999) / 1_000_000)
                timeout = timeout < 0 ? sweepWait : min(timeout, sweepWait)
            }
            if waiting {
                // Until the gap has passed, in whole milliseconds, rounded up.
                let left = lastBatch &+ paced.gap &- MonotonicClock.nanoseconds()
                let gap = Int32(clamping: max(left, 0) / 1_000_000 + (left % 1_000_000 > 0 ? 1 : 0))
                timeout = timeout < 0 ? gap : min(timeout, gap)
            }
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollDescriptor, buffer.baseAddress, Int32(buffer.count), timeout)
            }
            if count < 0 {
                guard errno == EINTR else {
                    core.report("worker \(index) cannot wait for events (errno \(errno)); it stops serving")
                    return
                }
                continue
            }
            if events.prefix(Int(count)).contains(where: { $0.data.u64 == Self.wakeToken }) {
                // Consumed before the queue is taken: a resume queued after this read wakes the next wait.
                var value: UInt64 = 0
                _ = withUnsafeMutableBytes(of: &value) { Glibc.read(wakeDescriptor, $0.baseAddress, $0.count) }
            }
            let now = MonotonicClock.nanoseconds()
            passStart.store(now, ordering: .relaxed)
            paced =
                maxResumeDelay > 0
                ? .worker(suspended: suspended.load(ordering: .relaxed), maxDelay: maxResumeDelay) : .none
            let (stopping, held, quiesce) = inbox.withLock { inbox -> (Bool, Bool, Bool) in
                inbox.enough = paced.enough
                let due = inbox.resumes.count >= paced.enough || now &- lastBatch >= paced.gap
                if inbox.isStopping || due {
                    swap(&resumes, &inbox.resumes)  // Both arrays keep their capacity: no allocation per batch.
                }
                defer { inbox.quiesce = false }
                return (inbox.isStopping, !inbox.resumes.isEmpty, inbox.quiesce)
            }
            if quiesce { leaveListeningSocket(daemon) }
            waiting = held
            if !resumes.isEmpty {
                for connection in resumes {
                    MHD_resume_connection(connection.pointer)
                    core.didResume()
                }
                suspended.subtract(resumes.count, ordering: .relaxed)
                resumes.removeAll(keepingCapacity: true)
                lastBatch = now
            }
            if stopping { return }
            let before = cmhd_daemon_current_connections(daemon.pointer)
            _ = MHD_run(daemon.pointer)
            if before >= connectionLimit, cmhd_daemon_current_connections(daemon.pointer) < before {
                // At its connection limit libmicrohttpd took the listening socket out of its epoll set, and puts it
                // back as a pass begins: this pass freed a slot, so a second pass does that before the worker
                // waits, or it would not see the next connection.
                _ = MHD_run(daemon.pointer)
            }
            releaseHeldAnswers(&released)
            let passEnd = MonotonicClock.nanoseconds()
            if passEnd >= nextSweep {
                nextSweep = passEnd &+ Self.sweepInterval
                closeLateConnections(now: passEnd)
            }
        }
    }
}
