/// A response for the transport to send: status, header fields and one of three kinds of body.
///
/// It is a value so that the layers above can build, inspect and test responses without libmicrohttpd.
public struct HTTPResponse: Sendable {
    /// The status code; outside 200...999 the transport sends a 500 instead (libmicrohttpd refuses codes
    /// that are not three digits, and informational 1xx answers are not final responses).
    public var status: Int {
        didSet { prepared = nil }
    }

    /// Header fields to send. `Content-Length` is always computed by libmicrohttpd and an explicit one is
    /// dropped; `Connection: close` closes the connection after this response.
    public var headers: HTTPHeaders {
        didSet { prepared = nil }
    }

    /// What follows the head.
    public var body: Body {
        didSet { prepared = nil }
    }

    /// This response in libmicrohttpd's form, made once and queued on every connection that sends it;
    /// set by ``shared()`` and dropped by any change to the response.
    private(set) var prepared: PreparedResponse?

    /// The kinds of body the transport can send.
    public enum Body: Sendable {
        /// Bytes in memory, sent with a `Content-Length`.
        case bytes([UInt8])
        /// A file opened when the response is sent and streamed by the kernel (`sendfile`).
        ///
        /// The length sent is the file's size at open time; `size` is advisory (say what you measured). A file
        /// that cannot be opened, or is not a regular file, turns the response into a 404 problem.
        case file(path: String, size: Int)
        /// Bytes produced over time (Server-Sent Events), sent with chunked encoding.
        case stream(ResponseStream)
    }

    /// Creates a response; the defaults make a bare `status` with an empty body.
    public init(status: Int, headers: HTTPHeaders = [:], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The same response, marked to be sent many times: the transport builds its libmicrohttpd form
    /// (body copy and header list) once and queues that one object on every connection that sends it,
    /// as when one change answers ten thousand parked long-polls. Only in-memory bodies are shared; a
    /// changed copy is an ordinary response again.
    public func shared() -> HTTPResponse {
        guard case .bytes = body else { return self }
        var shared = self
        shared.prepared = PreparedResponse()
        return shared
    }

    /// Whether the transport builds this response's libmicrohttpd form once for every connection that sends it
    /// (see ``shared()``).
    public var isShared: Bool { prepared != nil }
}
