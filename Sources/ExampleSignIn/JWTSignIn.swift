import Foundation
import JWTKit
import ReMVVM
import ReMVVMServer

/// The example's sign-in: a JWT signed with the server's key, sent as `Authorization: Bearer <jwt>`, names the
/// caller (its `sub`), with its `name` and `role` claims kept for the app (`role: admin` may announce).
///
/// The key is an HMAC secret (HS256) or a PEM public key (ES256 or RS256), read once at start
/// (``load(keyFile:)``). Expired, not-yet-valid, badly signed and malformed tokens are answered 401.
public struct JWTSignIn: Authenticator {
    /// The claims the example reads.
    public struct Claims: JWTPayload, Equatable {
        /// Whom the token names.
        public var sub: SubjectClaim
        /// When it expires; required, so a token never lives for ever.
        public var exp: ExpirationClaim
        /// The name shown in chat rooms.
        public var name: String?
        /// `admin` may post announcements.
        public var role: String?

        /// Claims for `subject` until `expires`.
        public init(subject: String, expires: Date, name: String? = nil, role: String? = nil) {
            sub = SubjectClaim(value: subject)
            exp = ExpirationClaim(value: expires)
            self.name = name
            self.role = role
        }

        public func verify(using algorithm: some JWTAlgorithm) async throws {
            try exp.verifyNotExpired()
        }
    }

    private let keys: JWTKeyCollection

    /// Verifies with the keys of `keys`.
    public init(keys: JWTKeyCollection) {
        self.keys = keys
    }

    /// Verifies HS256 tokens signed with `secret`.
    public static func hmac(secret: String) async -> JWTSignIn {
        JWTSignIn(keys: await JWTKeyCollection().add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256))
    }

    /// Verifies with the key in `path`: a PEM public key (ES256 or RS256), else the file's text, trimmed, as an
    /// HMAC secret (HS256) of at least 32 bytes.
    public static func load(keyFile path: String) async throws -> JWTSignIn {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw KeyFileError(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard text.hasPrefix("-----BEGIN") else {
            guard text.utf8.count >= 32 else {
                throw KeyFileError(path: path, reason: "holds an HMAC secret shorter than 32 bytes")
            }
            return await hmac(secret: text)
        }
        if let key = try? ES256PublicKey(pem: text) {
            return JWTSignIn(keys: await JWTKeyCollection().add(ecdsa: key))
        }
        if let key = try? Insecure.RSA.PublicKey(pem: text) {
            return JWTSignIn(keys: await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256))
        }
        throw KeyFileError(path: path, reason: "holds a PEM key that is neither a P-256 nor an RSA public key")
    }

    /// The subject and claims of the request's JWT.
    public func authenticate(_ request: RequestHead) async throws -> Identity {
        guard let token = request.bearerToken, token.contains(".") else {
            throw AuthenticationError.missingCredentials(
                "sign in: send a JWT as 'Authorization: Bearer <jwt>' (on a session's requests, with the session "
                    + "token in the remvvm_token cookie)")
        }
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self)
        } catch let error as JWTError {
            throw AuthenticationError.invalidCredentials(Self.describe(error))
        } catch {
            throw AuthenticationError.invalidCredentials("the JWT cannot be read: sign in again")
        }
        var identity = Identity(subject: claims.sub.value)
        if let name = claims.name { identity.claims["name"] = name }
        if let role = claims.role { identity.claims["role"] = role }
        return identity
    }

    /// What was wrong with a token, for the client: never the key.
    private static func describe(_ error: JWTError) -> String {
        switch error.errorType {
        case .claimVerificationFailure:
            return "the JWT has expired (or a claim does not hold: \(error.reason ?? "exp")); sign in again"
        case .signatureVerificationFailed:
            return "the JWT's signature does not verify with this server's key"
        case .malformedToken:
            return "the JWT is malformed; send the three dot-separated parts as issued"
        default:
            return "the JWT is not accepted (\(error.errorType)); sign in again"
        }
    }
}

/// A JWT key file the server cannot use.
public struct KeyFileError: Error, CustomStringConvertible {
    /// The file.
    public let path: String
    /// What is wrong with it.
    public let reason: String

    public var description: String { "the JWT key file '\(path)' \(reason)" }
}
