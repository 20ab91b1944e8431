import MicroHTTP

/// An ``HTTPHandler`` made of a closure, so each test states its own behaviour inline.
struct ClosureHandler: HTTPHandler {
    let body: @Sendable (HTTPRequest, Responder) -> Void

    func handle(_ request: HTTPRequest, responder: Responder) {
        body(request, responder)
    }
}
