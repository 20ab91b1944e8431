/// Why an ``HTTPServer`` could not start.
///
/// A struct around a private code, so new causes can be added without breaking anyone's `switch`; compare
/// with the static members (`error == .addressInUse`) or read ``description``.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case invalidConfiguration
        case addressInUse
        case bindFailed
        case startFailed
        case alreadyStarted
    }

    private let code: Code

    /// A sentence for logs and operators: what failed and with which values.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// A configuration value is out of range or the host is not an IPv4 address.
    public static let invalidConfiguration = HTTPServerError(.invalidConfiguration, "invalid configuration")
    /// Another socket already listens on the address and port.
    public static let addressInUse = HTTPServerError(.addressInUse, "address in use")
    /// Binding failed for another reason (no such local address, no permission for the port, ...).
    public static let bindFailed = HTTPServerError(.bindFailed, "bind failed")
    /// libmicrohttpd refused to start for a reason it does not report (threads, memory, epoll).
    public static let startFailed = HTTPServerError(.startFailed, "start failed")
    /// ``HTTPServer/start()`` was called on a server that was already started (servers are single-use).
    public static let alreadyStarted = HTTPServerError(.alreadyStarted, "already started")

    /// Errors are equal when their causes are equal, whatever their messages, so tests and callers can
    /// match on the cause.
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool {
        lhs.code == rhs.code
    }

    /// The same cause with a message naming the concrete values.
    func with(_ description: String) -> HTTPServerError {
        HTTPServerError(code, description)
    }
}
