import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// An RFC 9457 problem answer: what went wrong, in a form both people and programs can read.
///
/// Every error the API gives is one of these, typed by a `/problems/<slug>` URI reference that
/// the OpenAPI description documents.
struct Problem: Error, Sendable {
    let status: Int
    let slug: String
    let title: String
    var detail: String
    var extensions: [String: JSONValue] = [:]
    var headers: HTTPHeaders = [:]

    var response: HTTPResponse {
        var body: [String: JSONValue] = extensions
        body["type"] = .string("/problems/\(slug)")
        body["title"] = .string(title)
        body["status"] = .int(Int64(status))
        body["detail"] = .string(detail)
        var headers = headers
        headers["Content-Type"] = "application/problem+json"
        return HTTPResponse(status: status, headers: headers, body: .bytes(JSONValue.object(body).serialized()))
    }

    static func badRequest(_ detail: String, slug: String = "bad-request") -> Problem {
        Problem(status: 400, slug: slug, title: "Bad Request", detail: detail)
    }

    static let sessionNotFound = Problem(
        status: 404, slug: "session-not-found", title: "Not Found",
        detail: "no session with this id for this token (unknown, expired, deleted, or the token is wrong)")

    /// A request with no credentials at all where it needs some (RFC 9110: 401 names the scheme to use in
    /// `challenge`): a session route without the session's token, or the app's authenticator asking for sign-in.
    static func missingCredentials(
        _ detail: String = "this route needs the session's token: send Authorization: Bearer <token>, the token that "
            + "POST /v1/sessions answered (or its remvvm_token cookie)",
        challenge: String = "Bearer"
    ) -> Problem {
        Problem(
            status: 401, slug: "missing-credentials", title: "Unauthorized", detail: detail,
            headers: ["WWW-Authenticate": challenge])
    }

    static func notFound(_ detail: String) -> Problem {
        Problem(status: 404, slug: "not-found", title: "Not Found", detail: detail)
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> Problem {
        Problem(
            status: 405, slug: "method-not-allowed", title: "Method Not Allowed",
            detail: "\(method) is not allowed here; use \(allowed.joined(separator: " or "))",
            headers: ["Allow": allowed.joined(separator: ", ")])
    }

    static func unsupportedMediaType(_ given: String?) -> Problem {
        let sent = given.map { "'\($0)'" } ?? "without a Content-Type"
        return Problem(
            status: 415, slug: "unsupported-media-type", title: "Unsupported Media Type",
            detail: "actions must be sent as application/json, not \(sent)")
    }

    static func invalidAction(_ error: ActionDecodingError) -> Problem {
        if case .malformedJSON = error.reason {
            return badRequest(error.description, slug: "malformed-json")
        }
        var problem =
            if case .serverOnly = error.reason {
                Problem(status: 403, slug: "server-only-action", title: "Forbidden", detail: error.description)
            } else {
                Problem(
                    status: 422, slug: "invalid-action", title: "Unprocessable Content", detail: error.description)
            }
        if let type = error.actionType { problem.extensions["actionType"] = .string(type) }
        if let types = error.clientTypes { problem.extensions["sendableTypes"] = .array(types.map(JSONValue.string)) }
        if let field = error.field { problem.extensions["field"] = .string(field) }
        if let index = error.index { problem.extensions["index"] = .int(Int64(index)) }
        return problem
    }

    static func versionMismatch(current: Cursor) -> Problem {
        Problem(
            status: 412, slug: "version-mismatch", title: "Precondition Failed",
            detail: "the session moved on to \(current); nothing was applied",
            extensions: ["currentVersion": .string(current.description)],
            headers: ["Store-Version": current.description, "ETag": current.etag])
    }

    static func tooManyRequests(_ detail: String) -> Problem {
        Problem(
            status: 429, slug: "too-many-waiters", title: "Too Many Requests", detail: detail,
            headers: ["Retry-After": "1"])
    }

    static func unavailable(_ detail: String) -> Problem {
        Problem(
            status: 503, slug: "unavailable", title: "Service Unavailable", detail: detail,
            headers: ["Retry-After": "5"])
    }

    static func crossSite() -> Problem {
        Problem(
            status: 403, slug: "cross-site-request", title: "Forbidden",
            detail: "a cookie-authenticated request that changes state must come from this server's own pages")
    }

    static func internalError(_ detail: String) -> Problem {
        Problem(status: 500, slug: "internal", title: "Internal Server Error", detail: detail)
    }
}
