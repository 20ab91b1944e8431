import CMicroHTTPD
import Glibc
import Synchronization

/// Watches the sockets of parked connections and reports clients that leave.
///
/// libmicrohttpd takes a suspended connection out of its epoll set, so it cannot see the peer closing. This
/// keeps its own epoll set of parked sockets (`EPOLLRDHUP`, one-shot) on one thread, and tells the owner of a
/// socket that hung up, which then resumes the connection so libmicrohttpd closes it and ends the request.
final class DisconnectWatcher: Sendable {
    private struct State: Sendable {
        /// The watched clients; a socket's epoll token is its client's handle here (never 0, the wake-up's).
        var clients = SlotTable<any ParkedClient>()
        var isClosed = false
        /// The watching thread, joined by `stop`.
        var thread: OwnedThread?
    }

    /// The epoll token of the wake-up eventfd; no socket's (``SlotTable`` handles are never 0).
    private static let wakeToken: UInt64 = 0

    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let state = Mutex(State())

    /// Creates the epoll set and its wake-up eventfd; `nil` if the kernel refuses (then nothing is watched).
    init?() {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { return nil }
        let wake = eventfd(0, Int32(EFD_CLOEXEC) | Int32(EFD_NONBLOCK))
        guard wake >= 0 else {
            close(epoll)
            return nil
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epoll, EPOLL_CTL_ADD, wake, &event) == 0 else {
            close(wake)
            close(epoll)
            return nil
        }
        epollDescriptor = epoll
        wakeDescriptor = wake
    }

    /// Starts the watching thread; returns `false` if it could not be created.
    func start() -> Bool {
        // While it runs, the thread holds the watcher.
        guard let thread = OwnedThread.start(named: "remvvm-watch", { [self] in run() }) else { return false }
        state.withLock { $0.thread = thread }
        return true
    }

    /// Starts watching `socket` for its peer leaving; returns the registration token, `nil` if not watched.
    ///
    /// A socket parked before on the same keep-alive connection is still in the epoll set (see `unwatch`), so
    /// `EEXIST` re-arms the registration with the new token instead.
    func watch(socket: Int32, client: any ParkedClient) -> UInt64? {
        state.withLock { state in
            guard !state.isClosed else { return nil }
            let token = state.clients.insert(client)
            var event = epoll_event()
            event.events = EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
            event.data.u64 = token
            var result = epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, socket, &event)
            if result != 0 && errno == EEXIST {
                result = epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, socket, &event)
            }
            guard result == 0 else {
                state.clients.remove(token)
                return nil
            }
            return token
        }
    }

    /// Stops reporting for `token`; called just before its connection is resumed.
    ///
    /// The socket deliberately stays in the epoll set: removing it would cost a system call per resume (10,000
    /// in one long-poll fan-out). A stale registration is harmless: its token (a handle) finds no client any
    /// more, so a late event is ignored; a new parking re-arms it (`watch`), and closing the socket removes it
    /// from the set.
    func unwatch(token: UInt64) {
        _ = state.withLock { $0.clients.remove(token) }
    }

    /// Stops the thread and closes the descriptors; the watcher is then inert. Idempotent.
    func stop() {
        let (wasClosed, thread) = state.withLock { ($0.isClosed, $0.thread) }
        guard !wasClosed else { return }
        var one: UInt64 = 1
        let written = withUnsafeBytes(of: &one) { Glibc.write(wakeDescriptor, $0.baseAddress, $0.count) }
        if let thread, written == MemoryLayout<UInt64>.size {
            thread.join()
        }
        state.withLock { state in
            state.isClosed = true
            _ = state.clients.removeAll()
            state.thread = nil
        }
        close(epollDescriptor)
        close(wakeDescriptor)
    }

    deinit {
        // Only reached without `stop` when the server never started (the thread retains the watcher).
        if !state.withLock({ $0.isClosed }) {
            close(epollDescriptor)
            close(wakeDescriptor)
        }
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while true {
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollDescriptor, buffer.baseAddress, Int32(buffer.count), -1)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            for event in events.prefix(Int(count)) {
                let token = event.data.u64
                if token == Self.wakeToken { return }
                let client = state.withLock { $0.clients.remove(token) }
                client?.clientDisappeared()
            }
        }
    }
}
