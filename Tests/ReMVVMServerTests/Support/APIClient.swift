import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// Speaks the v1 API to a test server over one keep-alive connection, and records every answer in the test's
/// ``ExchangeLog``; requests that must stay open (a parked poll, an event stream) get connections of their own.
struct APIClient: Sendable {
    let port: UInt16
    let log: ExchangeLog
    /// The local address the client connects from (`127.0.0.2`, ...); nil for the system's choice (127.0.0.1).
    let source: String?
    private let connection: AsyncHTTPConnection

    /// Connects to the test server at `port`, from the local address `source` when given.
    init(port: UInt16, log: ExchangeLog, from source: String? = nil, timeout: Duration = .seconds(5)) throws {
        self.port = port
        self.log = log
        self.source = source
        connection = try AsyncHTTPConnection(port: port, timeout: timeout, from: source)
    }

    /// Sends one request and reads the answer.
    func request(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = []
    ) async throws -> TestResponse {
        let response = try await connection.request(method, target, headers: headers, body: body)
        log.record(method: method, target: target, status: response.status)
        ResponseContract.check(response, method: method, target: target)
        return response
    }

    /// Sends one request on a new connection and returns without waiting for the answer, which may take up to
    /// `timeout` (parked polls wait for the server's housekeeper).
    func start(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        timeout: Duration = .seconds(15)
    ) async throws -> PendingResponse {
        let connection = try AsyncHTTPConnection(port: port, timeout: timeout, from: source)
        let sentAt = try await connection.send(method, target, headers: headers, body: body)
        return PendingResponse(connection: connection, method: method, target: target, log: log, sentAt: sentAt)
    }

    // MARK: Sessions

    /// Creates a session (with `headers`, the app's credentials); throws unless the server answers 201 with an id
    /// and a token.
    func createSession(headers: [(String, String)] = []) async throws -> TestSession {
        let response = try await request("POST", "/v1/sessions", headers: headers)
        let body = try response.json()
        guard response.status == 201, let id = body["id"]?.stringValue, let token = body["token"]?.stringValue,
            let version = body["version"]?.stringValue, let views = body["views"]
        else {
            throw TestClientError(description: "creating a session answered \(response.status): \(response.text)")
        }
        return TestSession(id: id, token: token, version: version, views: views, response: response)
    }

    /// `GET /v1/sessions/{id}`.
    func read(_ session: TestSession, query: String = "", headers: [(String, String)] = []) async throws
        -> TestResponse
    {
        try await request("GET", session.path + query, headers: [session.bearer] + headers)
    }

    /// `DELETE /v1/sessions/{id}`.
    func delete(_ session: TestSession) async throws -> TestResponse {
        try await request("DELETE", session.path, headers: [session.bearer])
    }

    /// `POST /v1/sessions/{id}/actions` with one action or a batch, as JSON.
    func dispatch(
        _ session: TestSession,
        _ actions: JSONValue,
        query: String = "",
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        try await dispatch(session, body: actions.serialized(), query: query, headers: headers)
    }

    /// `POST /v1/sessions/{id}/actions` with any body; JSON unless `headers` give another content type.
    func dispatch(
        _ session: TestSession,
        body: [UInt8],
        query: String = "",
        headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var all = [session.bearer] + headers
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            all.append(("Content-Type", "application/json"))
        }
        return try await request("POST", session.path + "/actions" + query, headers: all, body: body)
    }

    /// `GET /v1/sessions/{id}/poll` answered at once (no `since`, a reset, a 4xx).
    func poll(_ session: TestSession, query: String = "") async throws -> TestResponse {
        try await request("GET", session.path + "/poll" + query, headers: [session.bearer])
    }

    /// `GET /v1/sessions/{id}/poll` on a connection of its own, to be parked.
    func startPoll(_ session: TestSession, query: String) async throws -> PendingResponse {
        try await start("GET", session.path + "/poll" + query, headers: [session.bearer])
    }

    /// `GET /v1/sessions/{id}/events` on a connection of its own: the answer's head (and body when it is not a
    /// stream), and the connection to read events from.
    func openEvents(
        _ session: TestSession,
        query: String = "",
        headers: [(String, String)] = []
    ) async throws -> (head: TestResponse, stream: AsyncHTTPConnection) {
        let target = session.path + "/events" + query
        let stream = try AsyncHTTPConnection(port: port, timeout: .seconds(15), from: source)
        let head = try await stream.withClient { client in
            try client.openEventStream(target, headers: [session.bearer] + headers)
        }
        log.record(method: "GET", target: target, status: head.status)
        ResponseContract.check(head, method: "GET", target: target)
        return (head, stream)
    }

    // MARK: Operations

    /// The `/metrics` exposition text.
    func metrics() async throws -> String {
        try await request("GET", "/metrics").text
    }

    /// The value of an unlabelled metric line (`remvvm_parked_polls 1`); nil when absent.
    func gauge(_ name: String) async throws -> Double? {
        let prefix = name + " "
        let line = try await metrics().split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Double($0.dropFirst(prefix.count)) }
    }
}
