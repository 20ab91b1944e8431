import Foundation
import ReMVVM

/// Blocks a login with an empty or over-long name: the client is told why and nothing changes.
public struct LoginValidationMiddleware: ActionMiddleware {
    public typealias State = AppState

    /// A first or last name: 64 characters, 256 bytes (see ``TextLimit``).
    public static let nameLimit = TextLimit(characters: 64, bytes: 256)

    /// Validates logins.
    public init() {}

    public func handle(_ action: UserAction.Login, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        let first = action.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = action.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !first.isEmpty, !last.isEmpty else {
            return .block(reason: "first name and last name are required")
        }
        for (what, value) in [("first name", first), ("last name", last)] {
            if let reason = Self.nameLimit.violation(in: value, named: what) { return .block(reason: reason) }
        }
        return .next(UserAction.Login(firstName: first, lastName: last))
    }
}
