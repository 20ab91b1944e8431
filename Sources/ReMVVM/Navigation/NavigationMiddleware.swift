/// Blocks navigation that cannot happen, so the client is told why instead of seeing nothing:
/// selecting an unknown tab, popping a root screen, dismissing when no modal is shown.
public struct NavigationMiddleware<State: Sendable>: Middleware {
    private let navigation: @Sendable (State) -> Navigation

    /// Guards the navigation substate that `navigation` reads (usually a key path).
    public init(_ navigation: @escaping @Sendable (State) -> Navigation) {
        self.navigation = navigation
    }

    public func handle(_ action: any StoreAction, context: inout MiddlewareContext<State>) -> MiddlewareResult {
        // Type identity checks, not casts: this runs for every action the store sees.
        if let select = action.exactly(NavigationAction.SelectTab.self) {
            let current = navigation(context.state)
            if !current.hasTab(select.tab) { return .block(reason: "unknown tab '\(select.tab)'") }
        } else if action.exactly(NavigationAction.Pop.self) != nil {
            if navigation(context.state).visibleStack.count <= 1 { return .block(reason: "already at the root screen") }
        } else if action.exactly(NavigationAction.DismissModal.self) != nil {
            if navigation(context.state).modals.isEmpty { return .block(reason: "no modal is shown") }
        }
        return .next(action)
    }
}
