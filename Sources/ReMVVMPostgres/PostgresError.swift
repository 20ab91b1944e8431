/// A failed libpq call: the server's message and SQLSTATE, or a lost connection.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE, when the server sent one.
    var state: String?
    /// libpq's or the server's message.
    package var message: String
    /// The connection is gone (or never came up): the next call connects again.
    var connectionLost = false
    /// The database was written by a newer server.
    var incompatible = false
    /// The session's lease moved to another node: its fence no longer matches.
    var fenced = false
    /// No answer came within the call's deadline (the connection was closed).
    var timedOut = false
    /// The server's DETAIL field, when it sent one (the fence check lists the lost sessions there).
    var detail: String?

    /// Whether the same call may succeed later: a lost connection, a timeout, a server shutting down, too little
    /// memory or disk, a conflict between transactions (serialization failure, deadlock, a lock not granted in
    /// time). Anything else (bad data, a violated constraint) fails the same way every time.
    var isTransient: Bool {
        if connectionLost || timedOut || fenced { return true }
        guard let state else { return true }
        // 08: connection; 53: insufficient resources; 57: operator intervention (cancel, shutdown); 58: system
        // error (I/O); 40: transaction rollback (serialization, deadlock); 55P03: lock not available; XX: internal.
        let transient = ["08", "53", "57", "58", "40", "XX"]
        return transient.contains { state.hasPrefix($0) } || state == "55P03" || state == "55006"
    }

    /// The message, with the SQLSTATE when there is one.
    package var description: String { state.map { "\(message) (SQLSTATE \($0))" } ?? message }
}
