import Synchronization

/// Answers one request exactly once, from any thread, now or later.
///
/// Answering inside ``HTTPHandler/handle(_:responder:)`` is the fast path: the response is queued as soon as the
/// handler returns. A handler may instead keep the responder and answer later (long-poll): the transport then
/// suspends the connection, holding no thread, and resumes it when ``respond(_:)`` is called. The responder
/// refers to its connection only while the request is alive; afterwards every call is a harmless no-op.
public final class Responder: Sendable {
    private enum Sink: Sendable {
        /// A real connection of a running server.
        case connection(ServerCore)
        /// No connection: answers go to a closure (in-process tests of handlers).
        case detached(@Sendable (HTTPResponse) -> Void)
    }

    private let state = Mutex(ExchangeState())
    private let sink: Sink
    /// The request as it arrives: its body and the transport's flags.
    // Safety: only libmicrohttpd's callbacks for this responder's connection read or change it, and libmicrohttpd
    // runs them one at a time on the connection's worker thread; a detached responder never uses it. For the
    // same reason its accesses skip the runtime's exclusivity check, which every request paid four times.
    @exclusivity(unchecked) nonisolated(unsafe) var context: RequestContext

    /// A responder for a request arriving on a server connection.
    init(core: ServerCore) {
        sink = .connection(core)
        context = RequestContext(maxBodySize: core.configuration.maxBodySize)
    }

    /// Creates a responder that is not bound to any connection, to test a handler in-process: the first
    /// answer is passed to `onResponse` and the request then counts as ended (termination handlers run).
    public init(onResponse: @escaping @Sendable (HTTPResponse) -> Void) {
        sink = .detached(onResponse)
        context = RequestContext(maxBodySize: 0)
        state.withLock { $0.beginHandling() }
    }

    /// Answers the request; the first call wins and later calls are ignored.
    ///
    /// Safe from any thread, inside or after `handle`. Returns `false` when the answer was ignored because the
    /// request was already answered or has ended (client gone, server stopped), so a caller can tell whether
    /// its response will be sent.
    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        let action = state.withLock { $0.respond(response) }
        switch (action, sink) {
        case (.ignored, _):
            return false
        case (.stored, .connection):
            return true
        case (.stored, .detached(let deliver)):
            deliver(response)
            end()
            return true
        case (.resume(let parking), .connection(let core)):
            core.resume(parking)
            return true
        case (.resume, .detached):
            return true  // A detached responder never parks.
        }
    }

    /// Whether an answer has been accepted (it may still be on its way to the client).
    public var isAnswered: Bool {
        state.withLock { $0.isAnswered }
    }

    /// Runs `body` once when this request ends for any reason: answered and sent, client gone, server stopping.
    ///
    /// It lets the layer above drop a parked long-poll waiter. It may be registered before or after
    /// ``respond(_:)``; if the request already ended, `body` runs immediately on the caller's thread. Otherwise it
    /// runs on the libmicrohttpd worker thread that owns the connection (on the caller of `respond` for a
    /// detached responder), with no transport lock held, and must not block.
    public func onTermination(_ body: @escaping @Sendable () -> Void) {
        let registered = state.withLock { $0.addTerminationHandler(body) }
        if !registered { body() }
    }

    // MARK: - Transport side

    /// The handler is about to run.
    func beginHandling() {
        state.withLock { $0.beginHandling() }
    }

    /// The answer given during `handle`, if any (then marked queued); `nil` leaves the state untouched.
    func takeAnswerGivenDuringHandling() -> HTTPResponse? {
        state.withLock { state in
            guard state.isAnswered, case .send(let response) = state.handlerReturned() else { return nil }
            return response
        }
    }

    /// After `handle` returned unanswered: sends an answer that arrived meanwhile, or suspends the connection.
    ///
    /// The suspension happens under the responder's lock, so a concurrent `respond` either lands before it (and
    /// is sent now) or finds the connection parked and resumes it: an answer is never lost and a connection is
    /// never resumed before it was suspended.
    func sendOrPark(_ connection: ConnectionHandle, core: ServerCore) -> ExchangeState.NextStep {
        state.withLock { state in
            let step = state.handlerReturned()
            if case .park = step {
                state.didPark(core.park(connection, watchedBy: self))
            }
            return step
        }
    }

    /// libmicrohttpd called back after a resume: what to do now.
    func daemonResumed(_ connection: ConnectionHandle, core: ServerCore) -> ExchangeState.NextStep {
        let step = state.withLock { $0.daemonResumed() }
        if case .park = step {
            return sendOrPark(connection, core: core)
        }
        return step
    }

    /// The request is over: runs the termination handlers and ends a stream that never got attached.
    func end() {
        // Only the stream is taken out of the lock: copying the whole response would retain its parts.
        let (handlers, stream) = state.withLock { state in
            (state.end(), state.responseStream)
        }
        stream?.requestEnded()
        for handler in handlers {
            handler()
        }
    }
}

extension Responder: ParkedClient {
    /// The disconnect watcher saw the client of this parked request leave: resume so libmicrohttpd closes it.
    func clientDisappeared() {
        guard case .connection(let core) = sink else { return }
        if let parking = state.withLock({ $0.clientDisappeared() }) {
            core.resume(parking)
        }
    }
}
