/// One complete HTTP request (head and body) as the transport hands it to an ``HTTPHandler``.
///
/// It is a plain value so the layers above can route, log and test with it without touching libmicrohttpd.
/// All strings come from libmicrohttpd's parsed view of the request; invalid UTF-8 is repaired with U+FFFD.
public struct HTTPRequest: Sendable {
    /// The request method exactly as the client sent it, e.g. `"GET"`, `"POST"` or `"HEAD"`.
    public var method: String

    /// The percent-decoded URL path, without the query string.
    ///
    /// libmicrohttpd decodes `%XX` escapes before the handler sees the path and does nothing else: `%2F`
    /// becomes `/`, `%2e%2e` becomes `..`, dot segments are not resolved, `+` stays `+`, and a decoded `%00`
    /// ends the path (everything after it is cut off). Anything serving files must therefore reject `..`
    /// segments and NUL on this value itself.
    public var path: String

    /// The decoded query arguments in the order they appear (`+` and `%XX` decoded; `?flag` gives an empty
    /// value); repeated names are kept.
    public var query: [(name: String, value: String)]

    /// The request header fields, looked up case-insensitively.
    public var headers: HTTPHeaders

    /// The whole request body; never longer than the configured ``HTTPServerConfiguration/maxBodySize``.
    public var body: [UInt8]

    /// The peer's IP address as text, e.g. `"127.0.0.1"`; empty if unknown.
    public var clientAddress: String

    /// The protocol version from the request line, e.g. `"HTTP/1.1"`.
    public var version: String

    /// Whether the peer (``clientAddress``) is one of ``HTTPServerConfiguration/trustedProxies``: only then may
    /// a header such as `X-Forwarded-For` name the client.
    public var isFromTrustedProxy: Bool

    /// Creates a request value, mainly so handlers can be tested in-process without a server.
    public init(
        method: String,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        clientAddress: String = "127.0.0.1",
        version: String = "HTTP/1.1",
        isFromTrustedProxy: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
        self.version = version
        self.isFromTrustedProxy = isFromTrustedProxy
    }

    /// The first value of the query argument `name` (exact, case-sensitive match), or `nil`.
    public func queryValue(_ name: String) -> String? {
        // Read in place: `first(where:)` would copy (retain and release) every argument it passes.
        query.withUnsafeBufferPointer { query in
            for index in query.indices where query[index].name == name { return query[index].value }
            return nil
        }
    }
}
