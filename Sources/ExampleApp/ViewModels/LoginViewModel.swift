import ReMVVM

/// The login form's fields.
public struct LoginViewModel: ViewModel {
    /// The entered first name.
    public let firstName: String
    /// The entered last name.
    public let lastName: String
    /// Whether a user is logged in.
    public let loggedIn: Bool

    /// Projects the user substate.
    public init(_ user: UserState) {
        firstName = user.firstName
        lastName = user.lastName
        loggedIn = user.loggedIn
    }
}
