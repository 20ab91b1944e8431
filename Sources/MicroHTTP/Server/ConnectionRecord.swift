import CMicroHTTPD
import Synchronization

/// What the transport keeps for one open connection, from libmicrohttpd's open notification to its close one: the
/// client counted against the per-address limit, and the connection's request deadline.
///
/// The connection's socket context holds a retained reference, so each callback finds it with one call
/// (``of(_:)``) rather than a hash lookup: its deadline moves on four times per request.
final class ConnectionRecord: Sendable {
    /// The client address (`s_addr`) counted against ``HTTPServerConfiguration/perClientConnectionLimit``, to
    /// uncount when the connection closes; nil when not counted.
    let countedClient: UInt32?
    /// Where the connection's request stands; only its worker thread touches it, the lock makes that checkable.
    let deadline: Mutex<RequestDeadline>

    init(countedClient: UInt32?, deadline: RequestDeadline) {
        self.countedClient = countedClient
        self.deadline = Mutex(deadline)
    }

    /// The record in `connection`'s socket context; nil before its open notification or after its close one.
    /// Call it inside a libmicrohttpd callback for the connection.
    static func of(_ connection: OpaquePointer) -> ConnectionRecord? {
        cmhd_connection_socket_context(connection).map {
            Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue()
        }
    }
}
