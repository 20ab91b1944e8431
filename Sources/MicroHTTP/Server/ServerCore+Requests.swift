import CMicroHTTPD
import Synchronization

extension ServerCore {
    /// The request line, before the header fields: a URL that leaves the connection's memory no room for its
    /// header fields and answer gets a 414 problem written past libmicrohttpd, which could write none
    /// (``DirectAnswer``).
    func screenURL(_ url: URLShape, on connection: ConnectionHandle) -> UnsafeMutableRawPointer? {
        let memory = ConnectionMemory(limit: configuration.connectionMemoryLimit)
        guard !memory.admits(url: url) else { return nil }
        DirectAnswer.send(.uriTooLong(url, memory: memory), on: connection)
        return DirectAnswer.mark
    }

    /// The first access-handler call, with the head complete: answers at once, unhandled, a head that leaves no
    /// room for an answer (431) and a declared body that is already too large (413).
    func beginRequest(_ responder: Responder, on connection: ConnectionHandle) -> MHD_Result {
        connection.worker.headReceived(connection.pointer)
        willWrite(on: connection)  // A `100 Continue` libmicrohttpd may send now.
        guard ConnectionMemory(limit: configuration.connectionMemoryLimit).leavesRoomForAnswer(on: connection) else {
            // Not handled: libmicrohttpd might find no room for the answer's head, so it goes past it, and the
            // connection closes.
            DirectAnswer.send(.requestHeadTooLarge(memory: configuration.connectionMemoryLimit), on: connection)
            return .NO
        }
        guard let declared = RequestReader.declaredContentLength(of: connection) else { return .YES }
        // libmicrohttpd reads the first Content-Length field; a proxy in front may have read another.
        guard !RequestReader.hasConflictingContentLengths(connection) else {
            counters.conflictingContentLengths.add(1, ordering: .relaxed)
            responder.markDispatched()
            return ResponseSender.send(.conflictingContentLengths, on: connection, core: self)
        }
        guard declared > UInt64(configuration.maxBodySize) else {
            responder.expectBody(length: Int(declared))
            return .YES
        }
        // libmicrohttpd closes the connection after this answer and never reads the body.
        counters.bodiesTooLarge.add(1, ordering: .relaxed)
        responder.markDispatched()
        return ResponseSender.send(.payloadTooLarge(limit: configuration.maxBodySize), on: connection, core: self)
    }

    /// A later access-handler call with no upload data: the request is complete, or a parked one was resumed.
    func continueRequest(
        _ responder: Responder,
        on connection: ConnectionHandle,
        url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        let body: [UInt8]
        switch responder.dispatch() {
        case .resumed:
            return carryOut(responder.daemonResumed(connection, core: self), on: connection)
        case .bodyTooLarge:
            connection.worker.bodyReceived(connection.pointer)
            counters.bodiesTooLarge.add(1, ordering: .relaxed)
            return ResponseSender.send(.payloadTooLarge(limit: configuration.maxBodySize), on: connection, core: self)
        case .handle(let received):
            connection.worker.bodyReceived(connection.pointer)
            body = received
        }
        if let fallback = stoppingFallback {
            return ResponseSender.send(fallback, on: connection, core: self)
        }
        let request = RequestReader.request(
            connection: connection, url: url, method: method, version: version, body: body,
            trustedProxies: trustedProxies)
        handler.handle(request, responder: responder)
        if let answer = responder.takeAnswerGivenDuringHandling() {
            // The fast path: no parking, and the answer leaves with the rest of this pass's.
            if case .bytes = answer.body { holdAnswer(on: connection) }
            return ResponseSender.send(answer, on: connection, core: self)
        }
        switch registerParked(responder) {
        case .registered(let registration): responder.registration = registration
        case .stopping(let fallback): responder.respond(fallback)
        }
        return carryOut(responder.sendOrPark(connection, core: self), on: connection)
    }

    /// The request ended (completion callback): leaves the registry and runs termination handlers.
    func endRequest(_ responder: Responder) {
        if let registration = responder.registration {
            unregisterParked(registration)
        }
        responder.end()
    }

    private func carryOut(_ step: ExchangeState.NextStep, on connection: ConnectionHandle) -> MHD_Result {
        switch step {
        case .send(let response):
            return ResponseSender.send(response, on: connection, core: self)
        case .park:
            return .YES
        case .abort:
            return .NO
        }
    }
}
