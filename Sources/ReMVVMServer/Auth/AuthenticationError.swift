/// Why an authenticator did not name the caller: the server answers each with a problem (RFC 9457).
///
/// ```swift
/// guard let token = request.bearerToken else { throw AuthenticationError.missingCredentials() }
/// ```
public struct AuthenticationError: Error, Sendable, CustomStringConvertible {
    enum Code: Sendable {
        /// No credentials at all: 401 with `WWW-Authenticate`.
        case missing
        /// Credentials that do not prove anything (expired, badly signed, malformed): 401 with `WWW-Authenticate`.
        case invalid
        /// Good credentials that may not do this: 403.
        case refused
    }

    let code: Code
    /// What was wrong and how to fix it, shown to the client as the problem's `detail`: never a secret.
    public let detail: String

    /// The request carries no credentials the authenticator reads: 401, with the server's challenge.
    public static func missingCredentials(_ detail: String = "this server needs credentials; send them") -> Self {
        Self(code: .missing, detail: detail)
    }

    /// The credentials prove nothing (expired, badly signed, malformed): 401, with the server's challenge.
    public static func invalidCredentials(_ detail: String) -> Self { Self(code: .invalid, detail: detail) }

    /// The credentials are good but not allowed here: 403.
    public static func refused(_ detail: String) -> Self { Self(code: .refused, detail: detail) }

    /// The status the server answers with: 401 or 403.
    public var status: Int { code == .refused ? 403 : 401 }

    public var description: String { "\(code): \(detail)" }
}
