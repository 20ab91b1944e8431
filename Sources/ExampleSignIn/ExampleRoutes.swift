import ExampleApp
import Foundation
import ReMVVM
import ReMVVMServer

/// The example's own routes: an announcement to a chat room from outside any session, and `GET /v1/me`.
public enum ExampleRoutes {
    /// The body of an announcement.
    public struct Announcement: Codable, Sendable {
        /// What to announce.
        public var text: String
    }

    /// Who announces in a room.
    public static let announcer = "announcement"

    /// Both routes; announcements publish to the server's hub, allowed to an identity with the `admin` role (when
    /// the server `signsIn`) or a caller that sends `adminToken` as `Authorization: Bearer <token>`.
    public static func all(adminToken: String?, signsIn: Bool) -> [AppRoute] {
        [announce(adminToken: adminToken, signsIn: signsIn), me]
    }

    /// `POST /v1/rooms/{room}/announcements` `{"text": "..."}`: every session in the room receives it as a
    /// `chat/message` from ``announcer``; answered 202 with the message's position in the room's topic.
    public static func announce(adminToken: String?, signsIn: Bool) -> AppRoute {
        .post("/v1/rooms/{room}/announcements", body: Announcement.self) { request, body in
            try authorize(request, adminToken: adminToken, signsIn: signsIn)
            let room = request.parameters["room", default: ""]
            let topic = ChatState.topic(of: room)
            guard room.count <= ChatMiddleware.maxNameLength, (try? TopicName.validate(topic)) != nil else {
                throw RouteError.badRequest(
                    "'\(room)' cannot be a room: at most \(ChatMiddleware.maxNameLength) characters of a topic name")
            }
            let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty, text.count <= ChatMiddleware.maxTextLength else {
                throw RouteError(
                    status: 422, slug: "invalid-body",
                    detail: "'text' must hold 1 to \(ChatMiddleware.maxTextLength) characters")
            }
            let sequence: UInt64
            do {
                sequence = try request.topics.publish(ChatAction.Message(from: announcer, text: text), to: topic)
            } catch {
                throw RouteError(status: 503, slug: "unavailable", detail: "cannot publish: \(error)", retryAfter: 1)
            }
            return try .json(["room": room, "sequence": "\(sequence)"], status: 202)
        }
    }

    /// `GET /v1/me`: the caller's identity, or 401 without credentials.
    public static let me = AppRoute.get("/v1/me") { request in
        guard let identity = request.identity else {
            throw AuthenticationError.missingCredentials("sign in: send a JWT as 'Authorization: Bearer <jwt>'")
        }
        return try .json(identity)
    }

    /// Lets an admin identity or the admin token through; asks for credentials when there are none.
    private static func authorize(_ request: AppRequest, adminToken: String?, signsIn: Bool) throws {
        if let identity = request.identity {
            guard identity[claim: "role"] == "admin" else {
                throw AuthenticationError.refused("only an admin may announce; '\(identity.subject)' is not one")
            }
            return
        }
        guard let sent = request.head.bearerToken else {
            throw AuthenticationError.missingCredentials(
                "announcements need an admin: send an admin's JWT or the admin token as 'Authorization: Bearer ...'")
        }
        guard let adminToken else {
            throw AuthenticationError.refused(
                signsIn
                    ? "announcements need an admin's JWT"
                    : "announcements need an admin: start the server with --admin-token-file or --jwt-key-file")
        }
        guard equalInConstantTime(sent, adminToken) else {
            throw AuthenticationError.invalidCredentials("the admin token is wrong")
        }
    }

    /// Whether `a` equals `b`, in time that depends on their lengths only.
    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
