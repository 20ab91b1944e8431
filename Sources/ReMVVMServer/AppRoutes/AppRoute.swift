import Foundation
@_spi(ReMVVMServer) import ReMVVM

/// A route of the app's own beside the v1 API (an admin announcement, a webhook, `GET /v1/me`): a method, a
/// path pattern whose `{name}` segments are parameters, and an async handler.
///
/// It shares the server's limits (the body size; the running-handler budget, 503 beyond), its problem errors (a
/// thrown ``RouteError`` or ``AuthenticationError`` becomes `application/problem+json`; anything else a 500
/// whose detail names no internals), its metrics (counted under the pattern) and its lifecycle (a stopping
/// server takes none and cancels the running ones). The handler runs off the HTTP workers: the request parks.
/// Document the route in the server's OpenAPI file like any other.
///
/// ```swift
/// AppRoute.post("/v1/rooms/{room}/announcements", body: Announcement.self) { request, body in
///     guard request.identity?[claim: "role"] == "admin" else { throw AuthenticationError.refused("admins only") }
///     let room = "chat/" + request.parameters["room", default: ""]
///     return try .json(["sequence": request.topics.publish(message, to: room)])
/// }
/// ```
///
/// The v1 API's own routes come first: a pattern under `/v1/sessions` is never reached.
public struct AppRoute: Sendable {
    /// The method it answers (`GET`, `POST`; `GET` answers `HEAD` too).
    public let method: String
    /// The pattern, as given (`/v1/rooms/{room}/announcements`): the route's label in metrics.
    public let path: String
    let segments: [Segment]
    let handler: @Sendable (AppRequest, [UInt8]) async throws -> AppResponse

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// A route whose handler reads the request only (no body).
    public init(
        _ method: String, _ path: String, _ handler: @escaping @Sendable (AppRequest) async throws -> AppResponse
    ) {
        self.init(method: method, path: path) { request, _ in try await handler(request) }
    }

    /// A route whose JSON body is decoded as `Body` first: a body that is not JSON is answered 400, one that does
    /// not decode 422, either naming what was wrong; a body sent as anything but `application/json` 415.
    public init<Body: Decodable & Sendable>(
        _ method: String, _ path: String, body: Body.Type,
        _ handler: @escaping @Sendable (AppRequest, Body) async throws -> AppResponse
    ) {
        self.init(method: method, path: path) { request, bytes in
            try await handler(request, try AppRoute.decode(Body.self, from: bytes, request: request))
        }
    }

    private init(
        method: String, path: String, handler: @escaping @Sendable (AppRequest, [UInt8]) async throws -> AppResponse
    ) {
        self.method = method.uppercased()
        self.path = path
        segments = path.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        self.handler = handler
    }

    /// A `GET` route.
    public static func get(
        _ path: String, _ handler: @escaping @Sendable (AppRequest) async throws -> AppResponse
    ) -> AppRoute {
        AppRoute("GET", path, handler)
    }

    /// A `POST` route with a JSON body.
    public static func post<Body: Decodable & Sendable>(
        _ path: String, body: Body.Type, _ handler: @escaping @Sendable (AppRequest, Body) async throws -> AppResponse
    ) -> AppRoute {
        AppRoute("POST", path, body: body, handler)
    }

    /// The parameters of `path` when it matches the pattern; nil when it does not.
    func parameters(of path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(parts, segments) {
            switch segment {
            case .literal(let literal): guard part == literal else { return nil }
            case .parameter(let name): parameters[name] = String(part)
            }
        }
        return parameters
    }

    private static func decode<Body: Decodable & Sendable>(
        _ type: Body.Type, from bytes: [UInt8], request: AppRequest
    ) throws -> Body {
        let contentType = request.head.header("content-type")
        guard contentType?.split(separator: ";").first?.trimmingWhitespace().lowercased() == "application/json"
        else {
            throw RouteError(
                status: 415, slug: "unsupported-media-type",
                detail:
                    "send the body as application/json, not \(contentType.map { "'\($0)'" } ?? "without a Content-Type")"
            )
        }
        guard (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil else {
            throw RouteError(status: 400, slug: "malformed-json", detail: "the body is not JSON")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw RouteError(status: 422, slug: "invalid-body", detail: Self.describe(error))
        }
    }

    /// A decoding error as a sentence naming the field and what it should be.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the body" : "'" + codingPath.map(\.stringValue).joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "'\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))' is missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) must be a \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)) must be a \(type), not null"
        case .dataCorrupted(let context): return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "the body does not decode: \(error)"
        }
    }
}

/// A request to an ``AppRoute``: its head, the pattern's parameters and who sent it.
public struct AppRequest: Sendable {
    /// The method, path, query, headers, cookies and client address.
    public let head: RequestHead
    /// The values of the pattern's `{name}` segments, by name.
    public let parameters: [String: String]
    /// Who sent it, as the server's ``Authenticator`` says; nil when the server has none, or the request carries
    /// no credentials (throw ``AuthenticationError/missingCredentials(_:)`` to ask for them: 401).
    public let identity: Identity?
    /// The server's topic hub (``StoreServer/topics``): what a route publishes to, into every session that hears
    /// the topic.
    public let topics: TopicHub
}

/// What an ``AppRoute`` answers: a status and a JSON body.
public struct AppResponse: Sendable {
    /// The status (200, 201, 202, 204).
    public var status: Int
    /// The JSON body; empty for none.
    var body: [UInt8]
    /// Extra header fields (`Location`).
    public var headers: [(name: String, value: String)]

    /// `value` as JSON with `status`.
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: [(name: String, value: String)] = []
    ) throws -> AppResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return AppResponse(status: status, body: Array(try encoder.encode(value)), headers: headers)
    }

    /// No body: 204.
    public static let noContent = AppResponse(status: 204, body: [], headers: [])
}

/// An error an ``AppRoute`` throws to answer with a problem (RFC 9457): a status, a slug that names its type
/// (`/problems/<slug>`), and a detail saying what was wrong and how to fix it.
public struct RouteError: Error, Sendable {
    /// The status, 400 to 599.
    public let status: Int
    /// The problem type's last path segment (`room-not-found`).
    public let slug: String
    /// What was wrong and how to fix it.
    public let detail: String
    /// `Retry-After` seconds, for a budget (429, 503).
    public let retryAfter: Int?

    /// A problem with `status`, typed `/problems/<slug>`.
    public init(status: Int, slug: String, detail: String, retryAfter: Int? = nil) {
        self.status = status
        self.slug = slug
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// 404: what the path names does not exist.
    public static func notFound(_ detail: String) -> RouteError {
        RouteError(status: 404, slug: "not-found", detail: detail)
    }

    /// 400: the request is wrong in a way the detail explains.
    public static func badRequest(_ detail: String) -> RouteError {
        RouteError(status: 400, slug: "bad-request", detail: detail)
    }
}
