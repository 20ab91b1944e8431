extension HTTPResponse {
    /// An RFC 9457 problem response (`application/problem+json`, `type` `about:blank`).
    ///
    /// The transport answers its own errors (413, 414, 431, 503 while stopping, 404 for a missing file) in this shape so a
    /// client sees one error format whichever layer produced it, with the header fields every answer of the server
    /// carries: no MIME sniffing, and no caching (an error is about one request).
    public static func problem(
        status: Int,
        title: String,
        detail: String? = nil,
        headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var json = #"{"type":"about:blank","title":"# + jsonString(title) + #","status":\#(status)"#
        if let detail {
            json += #","detail":"# + jsonString(detail)
        }
        json += "}"
        var allHeaders = headers
        allHeaders["Content-Type"] = "application/problem+json"
        allHeaders["X-Content-Type-Options"] = "nosniff"
        allHeaders["Cache-Control"] = "no-store"
        return HTTPResponse(status: status, headers: allHeaders, body: .bytes(Array(json.utf8)))
    }

    /// What every still-unanswered request gets when the server stops: a 503 problem that also closes the
    /// connection, so clients reconnect to whichever instance replaces this one.
    public static let serverStopping = HTTPResponse.problem(
        status: 503,
        title: "Service Unavailable",
        detail: "the server is stopping",
        headers: ["Connection": "close"]
    )

    /// The transport's answer to a body larger than `limit` bytes.
    static func payloadTooLarge(limit: Int) -> HTTPResponse {
        problem(status: 413, title: "Payload Too Large", detail: "request body exceeds \(limit) bytes")
    }

    /// The transport's answer to a request head that leaves too little of the connection's `memory` bytes for
    /// an answer (``ConnectionMemory``); the request is not handled.
    static func requestHeadTooLarge(memory: Int) -> HTTPResponse {
        problem(
            status: 431,
            title: "Request Header Fields Too Large",
            detail: "the request's URL and header fields leave too little of the connection's \(memory) bytes for an "
                + "answer; send a shorter URL or fewer or shorter fields (cookies count about twice)"
        )
    }

    /// The transport's answer to a URL that ``ConnectionMemory/admits(url:)`` refuses; the request is not
    /// handled.
    static func uriTooLong(_ url: URLShape, memory: ConnectionMemory) -> HTTPResponse {
        let arguments = url.arguments == 1 ? "1 query argument" : "\(url.arguments) query arguments"
        return problem(
            status: 414,
            title: "URI Too Long",
            detail: "the request's URL (\(url.length) bytes, \(arguments)) leaves too little of the connection's "
                + "\(memory.limit) bytes for its header fields and answer: a URL may have \(memory.longestURL) bytes "
                + "less \(ConnectionMemory.bytesPerValue) per query argument, and at most \(memory.mostArguments) "
                + "arguments"
        )
    }

    /// The transport's answer to a connection over ``HTTPServerConfiguration/perClientConnectionLimit``.
    static func tooManyConnections(limit: Int) -> HTTPResponse {
        problem(
            status: 429, title: "Too Many Requests",
            detail: "this address already holds \(limit) open connections to the server; close some, or reuse "
                + "keep-alive connections, and retry",
            headers: ["Retry-After": "1"])
    }

    /// The transport's answer to a request head or body that took longer than its deadline.
    static func requestTimeout(_ part: String, limit: Duration) -> HTTPResponse {
        problem(
            status: 408, title: "Request Timeout",
            detail: "the request \(part) did not arrive within \(limit.components.seconds) s; send it at once")
    }

    /// The transport's answer to a request with `Content-Length` fields that differ (RFC 9112 §6.3).
    static let conflictingContentLengths = problem(
        status: 400, title: "Bad Request",
        detail: "the request has Content-Length fields that differ; send one Content-Length field")

    /// The transport's answer to a new event stream while all streams hold more unsent bytes than their budget.
    static func streamBudgetExhausted(budget: Int) -> HTTPResponse {
        problem(
            status: 503, title: "Service Unavailable",
            detail: "event streams hold more unsent bytes than the server's budget (\(budget) bytes); retry later",
            headers: ["Retry-After": "5"])
    }

    /// Quotes `text` as a JSON string literal (RFC 8259 escapes), avoiding a Foundation round trip.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
