import MicroHTTP

/// Why a ``StoreServer`` could not start serving.
///
/// A struct around a private code, so new causes can be added without breaking anyone's `switch`: compare with
/// the static members (`error == .addressInUse`) or read ``description``, which names the concrete values.
public struct StoreServerError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case invalidConfiguration
        case addressInUse
        case cannotListen
        case cannotStart
        case alreadyStarted
    }

    private let code: Code

    /// A sentence for logs and operators: what failed and with which values.
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// A configuration value is out of range, or the host is not an IPv4 address.
    public static let invalidConfiguration = StoreServerError(.invalidConfiguration, "invalid configuration")
    /// Another socket already listens on the address and port.
    public static let addressInUse = StoreServerError(.addressInUse, "address in use")
    /// The address could not be bound for another reason (no such local address, no permission for the port).
    public static let cannotListen = StoreServerError(.cannotListen, "cannot listen")
    /// The HTTP workers or the housekeeping thread could not be started (threads, memory, descriptors).
    public static let cannotStart = StoreServerError(.cannotStart, "cannot start")
    /// The server was started before: a server serves once, from its start to its stop.
    public static let alreadyStarted = StoreServerError(.alreadyStarted, "already started")

    /// Errors are equal when their causes are, whatever their messages, so callers can match on the cause.
    public static func == (lhs: StoreServerError, rhs: StoreServerError) -> Bool {
        lhs.code == rhs.code
    }

    /// The same cause with a message naming the concrete values.
    func with(_ description: String) -> StoreServerError {
        StoreServerError(code, description)
    }

    /// The cause the transport reported, in the server's terms and with the transport's message.
    init(_ error: HTTPServerError) {
        let cause: StoreServerError =
            switch error {
            case .invalidConfiguration: .invalidConfiguration
            case .addressInUse: .addressInUse
            case .bindFailed: .cannotListen
            case .alreadyStarted: .alreadyStarted
            default: .cannotStart
            }
        self = cause.with(error.description)
    }
}
