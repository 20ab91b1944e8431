import MicroHTTP

/// What an authenticator or an app route sees of a request: its method, path, query, headers, cookies and the
/// address it came from. A value, so an authenticator can keep it across `await`s.
public struct RequestHead: Sendable {
    /// The method as sent (`GET`, `POST`).
    public let method: String
    /// The percent-decoded path, without the query.
    public let path: String
    /// The decoded query arguments, in order.
    public let query: [(name: String, value: String)]
    /// The header fields, in order, names as sent; ``header(_:)`` looks one up case-insensitively.
    public let headers: [(name: String, value: String)]
    /// The client's IP address as text (`127.0.0.1`): the peer's, or behind a trusted proxy
    /// (``ServerConfiguration/trustedProxies``) the one it forwarded; empty when unknown.
    public let clientAddress: String

    /// A head for tests and for apps that check credentials outside a server.
    public init(
        method: String, path: String, query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [], clientAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.clientAddress = clientAddress
    }

    /// The head of `request`, sent by `clientAddress` (read by ``ClientAddress/of(_:)``, not the raw peer).
    init(_ request: borrowing HTTPRequest, clientAddress: String) {
        self.init(
            method: request.method, path: request.path, query: request.query, headers: Array(request.headers),
            clientAddress: clientAddress)
    }

    /// The first field called `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The token of `Authorization: Bearer <token>`, or nil when there is no such header.
    public var bearerToken: String? {
        header("authorization").flatMap(Credentials.bearerToken).map(String.init)
    }

    /// The cookie called `name`, from every `Cookie` field, or nil.
    public func cookie(_ name: String) -> String? {
        for field in headers where field.name.lowercased() == "cookie" {
            for pair in field.value.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingWhitespace() == name { return parts[1].trimmingWhitespace() }
            }
        }
        return nil
    }
}
