extension Navigation {
    /// The navigation reducers, one per navigation action; lift it into the app's state.
    public static let reducer = AnyReducer<Navigation>(
        .on(NavigationAction.Push.self) { state, action in state.push(action.screen) },
        .on(NavigationAction.Pop.self) { state, _ in state.pop() },
        .on(NavigationAction.PopToRoot.self) { state, _ in state.popToRoot() },
        .on(NavigationAction.ShowModal.self) { state, action in state.showModal(action.screen) },
        .on(NavigationAction.DismissModal.self) { state, _ in state.dismissModal() },
        .on(NavigationAction.SelectTab.self) { state, action in state.selectTab(action.tab) }
    )
}
