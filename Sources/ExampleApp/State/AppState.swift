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

    /// The chat room joined and its messages.
    public var chat = ChatState()

    /// What the counter's view calls it: new in version 2 of the app (``ExampleApp/Version``), whose new sessions
    /// and migrated ones get ``ExampleApp/defaultCounterLabel``; nil (and absent from the JSON) in version 1.
    public var counterLabel: String?

    /// A fresh session's state.
    public init() {}

    private enum CodingKeys: String, CodingKey { case counter, user, quote, navigation, chat, counterLabel }

    /// Decodes a state; one stored before the chat existed has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        counter = try container.decode(Int.self, forKey: .counter)
        user = try container.decode(UserState.self, forKey: .user)
        quote = try container.decode(QuoteState.self, forKey: .quote)
        navigation = try container.decode(Navigation.self, forKey: .navigation)
        chat = try container.decodeIfPresent(ChatState.self, forKey: .chat) ?? ChatState()
        counterLabel = try container.decodeIfPresent(String.self, forKey: .counterLabel)
    }
}
