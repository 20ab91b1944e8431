/// A response for the transport to send: status, header fields and one of three kinds of body.
///
/// It is a value so that the layers above can build, inspect and test responses without libmicrohttpd.
public struct HTTPResponse: Sendable {
    /// The status code; outside 200...999 the transport sends a 500 instead (libmicrohttpd refuses codes
    /// that are not three digits, and informational 1xx answers are not final responses).
    public var status: Int

    /// Header fields to send. `Content-Length` is always computed by libmicrohttpd and an explicit one is
    /// dropped; `Connection: close` closes the connection after this response.
    public var headers: HTTPHeaders

    /// What follows the head.
    public var body: Body

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
}
