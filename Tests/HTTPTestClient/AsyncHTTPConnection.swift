import Synchronization

/// One keep-alive connection for async tests: every call does its blocking I/O on a thread of its own (see
/// ``onOwnThread(_:)``), so tests can hold a parked request or an open event stream across `await`s.
public final class AsyncHTTPConnection: Sendable {
    private let client: Mutex<TestHTTPClient>

    /// Connects to 127.0.0.1:`port` (from the local address `source`, when given); every read then waits at most
    /// `timeout`.
    public init(port: UInt16, timeout: Duration = .seconds(5), from source: String? = nil) throws {
        client = Mutex(try TestHTTPClient(port: port, timeout: timeout, from: source))
    }

    /// Runs `body` with the blocking client on a thread of its own; calls are serialised.
    public func withClient<Result: Sendable>(
        _ body: @escaping @Sendable (TestHTTPClient) throws -> Result
    ) async throws -> Result {
        try await onOwnThread { [self] in
            try client.withLock { client in try body(client) }
        }
    }

    /// Sends one request and reads its whole response.
    public func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> TestResponse {
        try await withClient { client in try client.request(method, target, headers: headers, body: body) }
    }

    /// Sends one request without reading the answer, and returns when it was sent.
    public func send(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> ContinuousClock.Instant {
        try await withClient { client in
            try client.sendRequest(method, target, headers: headers, body: body)
            return ContinuousClock.now
        }
    }

    /// Reads the answer to a request sent with ``send(_:_:headers:body:)``.
    public func response(hasBody: Bool = true) async throws -> TestResponse {
        try await withClient { client in try client.readResponse(hasBody: hasBody) }
    }

    /// Reads a status line and header block (the start of an event stream).
    public func head() async throws -> TestResponse {
        try await withClient { client in
            let head = try client.readHead()
            return TestResponse(status: head.status, headers: head.headers, body: [])
        }
    }

    /// The next event-stream block, data or not; nil at the end of the stream.
    public func nextEventBlock() async throws -> TestServerSentEvent? {
        try await withClient { client in try client.readEventBlock() }
    }

    /// The next event-stream block with data; nil at the end of the stream.
    public func nextEvent() async throws -> TestServerSentEvent? {
        try await withClient { client in try client.readEvent() }
    }

    /// Closes the socket, so the server sees the client leave; waits for a call in progress to end first.
    public func close() {
        client.withLock { $0.close() }
    }
}
