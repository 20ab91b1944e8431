import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a request to the server did not succeed.
///
/// ``isRetryable`` tells a passing trouble (the server unreachable, restarting, busy) from a refusal the client must
/// act on (a wrong token, an action the server does not accept): the client retries the first kind by itself and
/// reports the second.
public struct ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; new kinds may be added.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// No answer: the server cannot be reached, or the connection dropped.
        public static let unreachable = Kind("unreachable")
        /// 503 or 502/504: the server is stopping, its storage is unavailable, or a proxy found no node.
        public static let unavailable = Kind("unavailable")
        /// 429, or 409 for an idempotency key still in flight: wait for `Retry-After`, then retry.
        public static let tooManyRequests = Kind("too many requests")
        /// 401: the request carries no credentials the server accepts.
        public static let unauthorized = Kind("unauthorized")
        /// 403: the server refuses this request (an action type clients may not send, a cross-site request).
        public static let forbidden = Kind("forbidden")
        /// 404 (204 for an event stream): the session is unknown, expired or deleted, or the token is wrong.
        public static let sessionNotFound = Kind("session not found")
        /// Any other 4xx: the request itself is wrong (an unknown action type or bad payload is a 422).
        public static let rejected = Kind("rejected")
        /// Any other 5xx.
        public static let serverError = Kind("server error")
        /// The answer is not what the protocol promises (not JSON, fields missing, a patch that does not apply).
        public static let invalidAnswer = Kind("invalid answer")
        /// A view could not be decoded into the type asked for.
        public static let decoding = Kind("decoding")

        public var description: String { name }
    }

    /// What kind of failure this is.
    public let kind: Kind
    /// The HTTP status, when there was an answer.
    public let status: Int?
    /// What went wrong: the problem document's `detail`, or the transport's message.
    public let detail: String
    /// How long the server asked to wait (`Retry-After`), if it did.
    public let retryAfter: Duration?

    /// Creates an error; the client makes these, tests may too.
    public init(_ kind: Kind, status: Int? = nil, detail: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.status = status
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// Whether waiting and sending the same request again can succeed.
    public var isRetryable: Bool {
        kind == .unreachable || kind == .unavailable || kind == .tooManyRequests
    }

    public var description: String {
        let code = status.map { " (\($0))" } ?? ""
        return "\(kind)\(code): \(detail)"
    }
}

extension ClientError {
    /// The error an HTTP answer with a failure `status` stands for; `body` is its problem document, if any.
    init(status: Int, body: Data, retryAfter: Duration?) {
        let detail = Self.problemDetail(body) ?? HTTPURLResponse.localizedString(forStatusCode: status)
        let kind: Kind
        switch status {
        case 401: kind = .unauthorized
        case 403: kind = .forbidden
        case 404: kind = .sessionNotFound
        case 409, 429: kind = .tooManyRequests
        case 502, 503, 504: kind = .unavailable
        case 400..<500: kind = .rejected
        default: kind = .serverError
        }
        self.init(kind, status: status, detail: detail, retryAfter: retryAfter)
    }

    /// The `detail` (else `title`) of an RFC 9457 problem document.
    private static func problemDetail(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        return (object["detail"] as? String) ?? (object["title"] as? String)
    }
}
