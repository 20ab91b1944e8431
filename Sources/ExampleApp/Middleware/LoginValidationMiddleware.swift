import Foundation
import ReMVVM

/// Blocks a login with an empty name: the client is told why and nothing changes.
public struct LoginValidationMiddleware: ActionMiddleware {
    public typealias State = AppState

    /// Validates logins.
    public init() {}

    public func handle(_ action: UserAction.Login, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        let first = action.firstName.trimmingCharacters(in: .whitespacesAndNewlines)
        let last = action.lastName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !first.isEmpty, !last.isEmpty else {
            return .block(reason: "first name and last name are required")
        }
        return .next(UserAction.Login(firstName: first, lastName: last))
    }
}
