import ReMVVM

/// The greeting: "Hello First Last" once logged in.
public struct GreetingViewModel: ViewModel {
    /// Whether a user is logged in.
    public let loggedIn: Bool
    /// The greeting, or "" when logged out.
    public let text: String

    /// Projects the user substate.
    public init(_ user: UserState) {
        loggedIn = user.loggedIn
        text = user.loggedIn ? "Hello \(user.firstName) \(user.lastName)" : ""
    }
}
