/// A libmicrohttpd connection pointer (`struct MHD_Connection *`) that may cross threads, so a parked connection
/// can be resumed from whichever thread answers it, and the worker whose daemon owns it.
// Safety: the pointer is only passed to libmicrohttpd while the transport's own state proves the connection is
// alive: inside a libmicrohttpd callback for that connection, or between suspending and resuming it
// (libmicrohttpd neither processes nor frees a suspended connection, and the server resumes every suspended
// connection before it stops the daemon). It is never used after the request ended.
struct ConnectionHandle: @unchecked Sendable, Equatable {
    /// The `struct MHD_Connection *` libmicrohttpd handed to a callback.
    let pointer: OpaquePointer
    /// The worker running the daemon that owns the connection: the only thread that may resume it.
    let worker: WorkerLoop

    static func == (lhs: ConnectionHandle, rhs: ConnectionHandle) -> Bool {
        lhs.pointer == rhs.pointer && lhs.worker === rhs.worker
    }
}

/// What it takes to resume a connection the transport suspended, and to stop watching its socket.
struct Parking: Sendable, Equatable {
    /// The suspended connection.
    let connection: ConnectionHandle
    /// The disconnect watcher's registration, `nil` when its socket is not watched.
    let watchToken: UInt64?
}
