/// A session's id and bearer token: all a client needs to resume it later.
///
/// Keep it as secret as a password: whoever holds the token holds the session.
public struct StoredSession: Codable, Sendable, Hashable {
    /// The session id, as in `/v1/sessions/{id}`.
    public var id: String
    /// The bearer token that proves ownership.
    public var token: String

    /// A session known by `id` and `token`.
    public init(id: String, token: String) {
        self.id = id
        self.token = token
    }
}
