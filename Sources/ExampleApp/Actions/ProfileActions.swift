import ReMVVM

/// High-level navigation, resolved by ``ShowProfileMiddleware``.
public enum ProfileAction {
    /// Shows the profile: pushed when logged in, else the login screen is presented modally.
    public struct Show: StoreAction, Equatable {
        public static let wireName = "profile/show"
        /// Shows the profile.
        public init() {}
    }
}
