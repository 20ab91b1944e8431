/// Answers requests: the single seam between the transport and the layers above it.
///
/// `handle` is called on one of the transport's worker threads once the whole request (head and body) has arrived. It
/// must not block: answer at once through the responder, or keep the responder and answer later from any
/// thread, in which case the transport parks the connection without holding a thread.
public protocol HTTPHandler: Sendable {
    /// Handles one request; call `responder.respond(_:)` exactly once, now or later.
    ///
    /// The request is handed over (`consuming`), so a handler that keeps it does so without copying it.
    func handle(_ request: consuming HTTPRequest, responder: Responder)
}
