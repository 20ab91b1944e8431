@_spi(ReMVVMServer) import ReMVVM

/// The app's sign-in: names the caller of a request from its head (a signed token, a cookie of the app's, the
/// client address), or refuses.
///
/// It is async and runs off the HTTP workers: the request parks (no thread waits) while it runs, so it may ask
/// an identity provider, fetch signing keys or read a database. Throw ``AuthenticationError`` to answer 401 or
/// 403; any other error is answered 503 (the provider is unreachable, say), as it says nothing about the caller.
///
/// ```swift
/// struct Tokens: Authenticator {
///     func authenticate(_ request: RequestHead) async throws -> Identity {
///         guard let token = request.bearerToken else { throw AuthenticationError.missingCredentials() }
///         return try await verifier.identity(of: token)
///     }
/// }
/// ```
public protocol Authenticator: Sendable {
    /// Who sent `request`; throws ``AuthenticationError`` when nobody the app knows did.
    func authenticate(_ request: RequestHead) async throws -> Identity
}

/// When and how a server runs the app's ``Authenticator``.
///
/// It runs when a session is created, and the identity it returns is the session's for good (stored with it,
/// shown to middleware and effects). With ``everyRequest`` it runs on each request on the session too, for
/// credentials that expire soon (a short-lived JWT): a request whose credentials name another subject than the
/// session's is refused (403), expired ones get 401. Without it, the session token alone is the proof, as a
/// login cookie is.
public struct Authentication: Sendable {
    /// The app's sign-in.
    public var authenticator: any Authenticator
    /// Whether every request on a session is authenticated too, not only its creation.
    public var everyRequest: Bool
    /// The `WWW-Authenticate` challenge of a 401 (RFC 9110), naming the scheme the authenticator reads.
    public var challenge: String

    /// Runs `authenticator` when a session is created and, if `everyRequest`, on every request on it.
    public init(_ authenticator: any Authenticator, everyRequest: Bool = false, challenge: String = "Bearer") {
        self.authenticator = authenticator
        self.everyRequest = everyRequest
        self.challenge = challenge
    }

    /// Runs `authenticate` as the authenticator.
    public init(
        everyRequest: Bool = false, challenge: String = "Bearer",
        _ authenticate: @escaping @Sendable (RequestHead) async throws -> Identity
    ) {
        self.init(ClosureAuthenticator(body: authenticate), everyRequest: everyRequest, challenge: challenge)
    }
}

/// An authenticator made of a closure.
private struct ClosureAuthenticator: Authenticator {
    let body: @Sendable (RequestHead) async throws -> Identity

    func authenticate(_ request: RequestHead) async throws -> Identity { try await body(request) }
}
