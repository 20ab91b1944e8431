/// Blocks navigation that cannot happen, so the client is told why instead of seeing nothing:
/// selecting an unknown tab, popping a root screen, dismissing when no modal is shown.
public struct NavigationMiddleware<State: Sendable>: Middleware {
    private let navigation: @Sendable (State) -> Navigation

    /// Guards the navigation substate that `navigation` reads (usually a key path).
    public init(_ navigation: @escaping @Sendable (State) -> Navigation) {
        self.navigation = navigation
    }

    public func handle(_ action: any StoreAction, context: inout MiddlewareContext<State>) -> MiddlewareResult {
        let current = navigation(context.state)
        switch action {
        case let select as NavigationAction.SelectTab where !current.hasTab(select.tab):
            return .block(reason: "unknown tab '\(select.tab)'")
        case is NavigationAction.Pop where current.visibleStack.count <= 1:
            return .block(reason: "already at the root screen")
        case is NavigationAction.DismissModal where current.modals.isEmpty:
            return .block(reason: "no modal is shown")
        default:
            return .next(action)
        }
    }
}
