import ReMVVM

/// The example app's whole state: each feature lives in a substate with its own reducers.
public struct AppState: Codable, Equatable, Sendable {
    /// The counter (ReMVVM's canonical example).
    public var counter: Int = 0
    /// Who is logged in.
    public var user = UserState()
    /// The async quote.
    public var quote = QuoteState()
    /// Tabs, stacks and modals.
    public var navigation = Navigation(tabs: [
        Navigation.Tab(id: "home", root: Screen("home")),
        Navigation.Tab(id: "settings", root: Screen("settings")),
    ])

    /// A fresh session's state.
    public init() {}
}
