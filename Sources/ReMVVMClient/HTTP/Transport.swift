import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP answer: its status, its header fields (names in lower case) and its body.
struct HTTPAnswer: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    /// `Retry-After` in seconds, as the server sends it.
    var retryAfter: Duration? {
        headers["retry-after"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { .seconds($0) }
    }
}

/// The requests of the v1 API over one `URLSession`, with the session's bearer token.
///
/// Every failure comes out as a ``ClientError``; a 2xx answer comes back as it is.
struct Transport: Sendable {
    let baseURL: URL
    let urlSession: URLSession

    /// Sends one request; `path` starts with `/`. Throws for a transport failure or a non-2xx status.
    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], token: String? = nil, body: Data? = nil,
        headers: [String: String] = [:], timeout: Duration
    ) async throws(ClientError) -> HTTPAnswer {
        let request = try self.request(
            method, path, query: query, token: token, body: body, headers: headers, timeout: timeout)
        let data: Data
        let response: URLResponse
        do {
            // In a task of its own, so that cancelling the caller does not cancel the URLSession task:
            // FoundationNetworking traps when a cancel races the task's completion ("a task that is not in the
            // registry"). A cancelled caller still gets its answer (or timeout) and then sees the cancellation.
            let session = urlSession
            (data, response) = try await Task { try await session.data(for: request) }.value
        } catch is CancellationError {
            throw ClientError(.unreachable, detail: "cancelled")
        } catch {
            throw ClientError(.unreachable, detail: error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else {
            throw ClientError(.invalidAnswer, detail: "not an HTTP answer")
        }
        var fields: [String: String] = [:]
        for case (let name as String, let value as String) in http.allHeaderFields { fields[name.lowercased()] = value }
        let answer = HTTPAnswer(status: http.statusCode, headers: fields, body: data)
        guard (200..<300).contains(http.statusCode) else {
            throw ClientError(status: http.statusCode, body: data, retryAfter: answer.retryAfter)
        }
        return answer
    }

    /// With FoundationNetworking, a short request (`HEAD /healthz`) that leaves a connection open for the next
    /// request to reuse: a long-poll or a stream waiting on a connection of its own keeps a thread busy there (see
    /// ``EventStream/open(_:warmUp:)``). Its answer, or failure, does not matter. Nothing with Apple's Foundation.
    func warmUp(timeout: Duration) async {
        #if canImport(FoundationNetworking)
            _ = try? await send("HEAD", "/healthz", timeout: timeout)
        #endif
    }

    /// The request for `method` and `path` (which starts with `/`) on the server, with the bearer `token`.
    func request(
        _ method: String, _ path: String, query: [URLQueryItem] = [], token: String? = nil, body: Data? = nil,
        headers: [String: String] = [:], timeout: Duration
    ) throws(ClientError) -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw ClientError(.invalidAnswer, detail: "the server URL \(baseURL) cannot take a path")
        }
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = basePath + path
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw ClientError(.invalidAnswer, detail: "cannot form a URL from \(baseURL) and \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}
