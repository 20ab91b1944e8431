/// The life of one request/response exchange, as a value-type state machine.
///
/// Every event returns what the caller must do (queue a response, suspend or resume the connection, run
/// termination handlers); the caller performs it. Keeping the rules here, with no I/O, makes the races between
/// a worker thread parking a connection and another thread answering it testable in isolation.
struct ExchangeState: Sendable {
    /// Where the exchange stands.
    enum Phase: Sendable, Equatable {
        /// The request is still arriving; the handler has not been called.
        case receiving
        /// The handler is running (or, for a detached responder, waiting for its answer).
        case handling
        /// The handler returned without answering; the connection is suspended.
        case parked
        /// The answer (or the client's departure) resumed the parked connection; libmicrohttpd has yet to call back.
        case resuming
        /// The response was handed to libmicrohttpd.
        case queued
        /// The request is over: sent, failed, client gone or server stopped.
        case ended
    }

    /// What `respond` asks the caller to do.
    enum RespondAction: Sendable, Equatable {
        /// Too late: already answered, client gone or request ended.
        case ignored
        /// Stored; whoever calls back next (the handler's thread or a detached sink) sends it.
        case stored
        /// Stored; resume this parked connection so libmicrohttpd calls back and sends it.
        case resume(Parking)
    }

    /// What to do after the handler returned, or after libmicrohttpd called back following a resume.
    enum NextStep: Sendable {
        /// Queue this response now.
        case send(HTTPResponse)
        /// No answer yet: suspend the connection.
        case park
        /// The client left while parked: close the connection without answering.
        case abort
    }

    private(set) var phase: Phase = .receiving
    private(set) var response: HTTPResponse?
    private(set) var clientGone = false
    private(set) var parking: Parking?
    private var terminationHandlers: [@Sendable () -> Void] = []

    /// Whether an answer has been accepted.
    var isAnswered: Bool { response != nil }

    /// The stream the accepted answer sends, if its body is one.
    var responseStream: ResponseStream? {
        guard case .stream(let stream)? = response?.body else { return nil }
        return stream
    }

    /// The handler is about to run.
    mutating func beginHandling() {
        if phase == .receiving { phase = .handling }
    }

    /// Someone answered; the first answer wins.
    mutating func respond(_ answer: HTTPResponse) -> RespondAction {
        guard response == nil, !clientGone, phase != .ended else { return .ignored }
        response = answer
        guard phase == .parked, let parked = parking else { return .stored }
        phase = .resuming
        parking = nil
        return .resume(parked)
    }

    /// The handler returned (or libmicrohttpd called back without anything to send): send or park.
    mutating func handlerReturned() -> NextStep {
        if let response {
            phase = .queued
            return .send(response)
        }
        return .park
    }

    /// The caller suspended the connection after `handlerReturned()` said `.park`.
    mutating func didPark(_ parked: Parking) {
        phase = .parked
        parking = parked
    }

    /// libmicrohttpd called the access handler again after a resume.
    mutating func daemonResumed() -> NextStep {
        if clientGone {
            phase = .queued
            return .abort
        }
        if phase == .resuming || phase == .parked {
            phase = .handling
        }
        return handlerReturned()
    }

    /// The disconnect watcher saw the client leave; returns the parking to resume, if the exchange is parked.
    mutating func clientDisappeared() -> Parking? {
        guard phase == .parked, let parked = parking else { return nil }
        clientGone = true
        phase = .resuming
        parking = nil
        return parked
    }

    /// Registers a termination handler; returns `false` when the exchange already ended (run it now).
    mutating func addTerminationHandler(_ handler: @escaping @Sendable () -> Void) -> Bool {
        guard phase != .ended else { return false }
        terminationHandlers.append(handler)
        return true
    }

    /// The request is over; returns the termination handlers to run, each exactly once.
    mutating func end() -> [@Sendable () -> Void] {
        phase = .ended
        parking = nil
        let handlers = terminationHandlers
        terminationHandlers = []
        return handlers
    }
}
