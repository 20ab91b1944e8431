import ReMVVM

/// Logging in and out.
public enum UserAction {
    /// Logs a user in; blocked by ``LoginValidationMiddleware`` when a name is empty.
    public struct Login: StoreAction, Equatable {
        public static let wireName = "user/login"
        /// The first name.
        public var firstName: String
        /// The last name.
        public var lastName: String
        /// Logs in `firstName lastName`.
        public init(firstName: String, lastName: String) {
            self.firstName = firstName
            self.lastName = lastName
        }
    }

    /// Logs the user out and clears the entered names.
    public struct Logout: StoreAction, Equatable {
        public static let wireName = "user/logout"
        /// Logs out.
        public init() {}
    }
}
