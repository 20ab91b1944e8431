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
    /// The server's DETAIL field, when it sent one (the fence check lists the lost sessions there).
    var detail: String?

    /// The message, with the SQLSTATE when there is one.
    package var description: String { state.map { "\(message) (SQLSTATE \($0))" } ?? message }
}
