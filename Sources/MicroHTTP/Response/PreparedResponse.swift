import CMicroHTTPD
import Synchronization

/// One libmicrohttpd response shared by every connection that sends the same ``HTTPResponse``.
///
/// libmicrohttpd counts the references of a response under its own lock, so one response may be queued on
/// connections of different worker threads. This object owns the first reference: it creates the response
/// on first use and destroys it in `deinit`, after which the queued connections still hold theirs.
final class PreparedResponse: Sendable {
    /// Safety of the pointer: it is only created and read under this lock, and destroyed once in `deinit`.
    private let made = Mutex<OpaquePointer?>(nil)

    /// The shared response, made by `make` on first use; nil if it cannot be made.
    func pointer(orMake make: () -> OpaquePointer?) -> OpaquePointer? {
        made.withLock { made in
            if made == nil { made = make() }
            return made
        }
    }

    /// Whether the libmicrohttpd response exists yet (for tests: it is made by the first send).
    var isMade: Bool { made.withLock { $0 != nil } }

    deinit {
        if let pointer = made.withLock({ $0 }) { MHD_destroy_response(pointer) }
    }
}
