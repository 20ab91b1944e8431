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

    /// Where the exchange stands, and the request as it arrives (its body and the transport's flags), under one
    /// lock: libmicrohttpd's callbacks for the connection touch the request one at a time on its worker thread,
    /// and the answer may come from any thread.
    private struct Exchange: Sendable {
        var state = ExchangeState()
        var request: RequestContext
    }

    private let exchange: Mutex<Exchange>
    private let sink: Sink

    /// A responder for a request arriving on a server connection.
    init(core: ServerCore) {
        sink = .connection(core)
        exchange = Mutex(Exchange(request: RequestContext(maxBodySize: core.configuration.maxBodySize)))
    }

    /// Creates a responder that is not bound to any connection, to test a handler in-process: the first
    /// answer is passed to `onResponse` and the request then counts as ended (termination handlers run).
    public init(onResponse: @escaping @Sendable (HTTPResponse) -> Void) {
        sink = .detached(onResponse)
        exchange = Mutex(Exchange(request: RequestContext(maxBodySize: 0)))
        exchange.withLock { $0.state.beginHandling() }
    }

    /// Answers the request; the first call wins and later calls are ignored.
    ///
    /// Safe from any thread, inside or after `handle`. Returns `false` when the answer was ignored because the
    /// request was already answered or has ended (client gone, server stopped), so a caller can tell whether
    /// its response will be sent.
    @discardableResult
    public func respond(_ response: HTTPResponse) -> Bool {
        let action = exchange.withLock { $0.state.respond(response) }
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
        exchange.withLock { $0.state.isAnswered }
    }

    /// Runs `body` once when this request ends for any reason: answered and sent, client gone, server stopping.
    ///
    /// It lets the layer above drop a parked long-poll waiter. It may be registered before or after
    /// ``respond(_:)``; if the request already ended, `body` runs immediately on the caller's thread. Otherwise it
    /// runs on the transport's worker thread that owns the connection (on the caller of `respond` for a
    /// detached responder), with no transport lock held, and must not block.
    public func onTermination(_ body: @escaping @Sendable () -> Void) {
        let registered = exchange.withLock { $0.state.addTerminationHandler(body) }
        if !registered { body() }
    }

    // MARK: - Transport side

    /// What the access handler finds when the request is complete (``dispatch()``).
    enum Dispatch {
        /// The handler already ran: libmicrohttpd called back after a resume.
        case resumed
        /// The body outgrew the limit: answer 413 without handling.
        case bodyTooLarge
        /// The request is to be handled (or answered with the stopping fallback) now, with this body.
        case handle(body: [UInt8])
    }

    /// The request is complete: marks it dispatched, and hands its body over once.
    func dispatch() -> Dispatch {
        exchange.withLock { exchange in
            guard !exchange.request.isDispatched else { return .resumed }
            exchange.request.isDispatched = true
            if exchange.request.bodyTooLarge { return .bodyTooLarge }
            exchange.state.beginHandling()
            return .handle(body: exchange.request.takeBody())
        }
    }

    /// The transport answers the request itself (413 for a declared body over the limit), without handling.
    func markDispatched() {
        exchange.withLock { $0.request.isDispatched = true }
    }

    /// Takes one upload chunk; returns `false` when the connection should be dropped.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        exchange.withLock { $0.request.receive(chunk) }
    }

    /// Reserves room for a body of the declared length (already checked against the limit).
    func expectBody(length: Int) {
        exchange.withLock { $0.request.expectBody(length: length) }
    }

    /// The responder's place in the server's parked registry, which it must leave when the request ends.
    var registration: UInt64? {
        get { exchange.withLock { $0.request.registration } }
        set { exchange.withLock { $0.request.registration = newValue } }
    }

    /// The answer given during `handle`, if any (then marked queued); `nil` leaves the state untouched.
    func takeAnswerGivenDuringHandling() -> HTTPResponse? {
        exchange.withLock { exchange in
            guard exchange.state.isAnswered, case .send(let response) = exchange.state.handlerReturned() else {
                return nil
            }
            return response
        }
    }

    /// After `handle` returned unanswered: sends an answer that arrived meanwhile, or suspends the connection.
    ///
    /// The suspension happens under the responder's lock, so a concurrent `respond` either lands before it (and
    /// is sent now) or finds the connection parked and resumes it: an answer is never lost and a connection is
    /// never resumed before it was suspended.
    func sendOrPark(_ connection: ConnectionHandle, core: ServerCore) -> ExchangeState.NextStep {
        exchange.withLock { exchange in
            let step = exchange.state.handlerReturned()
            if case .park = step {
                exchange.state.didPark(core.park(connection, watchedBy: self))
            }
            return step
        }
    }

    /// libmicrohttpd called back after a resume: what to do now.
    func daemonResumed(_ connection: ConnectionHandle, core: ServerCore) -> ExchangeState.NextStep {
        let step = exchange.withLock { $0.state.daemonResumed() }
        if case .park = step {
            return sendOrPark(connection, core: core)
        }
        return step
    }

    /// The request is over: runs the termination handlers and ends a stream that never got attached.
    func end() {
        // Only the stream is taken out of the lock: copying the whole response would retain its parts.
        let (handlers, stream) = exchange.withLock { exchange in
            (exchange.state.end(), exchange.state.responseStream)
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
        if let parking = exchange.withLock({ $0.state.clientDisappeared() }) {
            core.resume(parking)
        }
    }
}
