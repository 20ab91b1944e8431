import ReMVVM

/// Turns the high-level `profile/show` into the navigation it stands for (the seed's
/// `ShowProfilePageMiddleware`): a logged-in user gets the profile pushed, anyone else the
/// login screen presented modally. Callers never need to know which.
public struct ShowProfileMiddleware: ActionMiddleware {
    public typealias State = AppState

    /// Resolves `profile/show`.
    public init() {}

    public func handle(_ action: ProfileAction.Show, context: inout MiddlewareContext<AppState>) -> MiddlewareResult {
        let user = context.state.user
        guard user.loggedIn else { return .next(NavigationAction.ShowModal(Screen("login"))) }
        if context.state.navigation.topScreen?.name == "profile" {
            return .block(reason: "the profile is already shown")
        }
        let name = "\(user.firstName) \(user.lastName)"
        return .next(NavigationAction.Push(Screen("profile", params: ["name": name])))
    }
}
