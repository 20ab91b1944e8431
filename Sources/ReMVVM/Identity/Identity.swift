/// Who a session belongs to, as the app's authenticator said when the session was created: a subject and the
/// few claims the app wants to decide with (a role, a display name).
///
/// Kept with the session in storage, so it survives a restart and a move to another node, and shown to
/// middleware (``MiddlewareContext/identity``) and effects (``EffectContext/identity``): "only the author may
/// delete this" is one middleware. A session created without an authenticator has none (nil).
public struct Identity: Sendable, Codable, Hashable {
    /// Whom the credentials name (a JWT's `sub`, a user id); two identities are the same person when their
    /// subjects are equal.
    public var subject: String
    /// What else the app keeps about the caller (roles, a name), small: it is stored with every session.
    public var claims: [String: String]

    /// An identity for `subject` with `claims`.
    public init(subject: String, claims: [String: String] = [:]) {
        self.subject = subject
        self.claims = claims
    }

    /// The claim `name`, or nil.
    public subscript(claim name: String) -> String? { claims[name] }
}
