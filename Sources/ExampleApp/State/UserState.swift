/// The logged-in user, if any.
public struct UserState: Codable, Equatable, Sendable {
    /// The entered first name ("" when logged out).
    public var firstName = ""
    /// The entered last name ("" when logged out).
    public var lastName = ""
    /// Whether a user is logged in.
    public var loggedIn = false

    /// Nobody logged in.
    public init() {}
}
