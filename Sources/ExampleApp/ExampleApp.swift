import Foundation
import ReMVVM

/// The example app the server runs by default: counter, login and greeting, an async quote,
/// navigation with a high-level `profile/show`, and a chat whose rooms are topics.
public enum ExampleApp {
    /// Screen titles for the navigation projection.
    static let titles: [String: String] = [
        "home": "Home", "settings": "Settings", "details": "Details", "profile": "Profile", "login": "Log in",
    ]

    /// The reducers of every substate, lifted into ``AppState`` and composed.
    public static let reducer = AnyReducer<AppState>(
        CounterReducer.reducer.lifted { state, body in body(&state.counter) },
        UserReducer.reducer.lifted(\.user),
        QuoteReducer.reducer.lifted(\.quote),
        Navigation.reducer.lifted(\.navigation),
        LoginNavigationReducer.reducer.lifted(\.navigation),
        ChatReducer.reducer.lifted(\.chat)
    )

    /// The named views clients can ask for.
    public static let projections: Projections<AppState> = {
        var views = Projections<AppState>()
        views.add("counter", from: \.counter, CounterViewModel.init)
        views.add("login", from: \.user, LoginViewModel.init)
        views.add("greeting", from: \.user, GreetingViewModel.init)
        views.add("quote", from: \.quote, QuoteViewModel.init)
        // A closure, not a key path: applied twice per dispatch, a key path costs a runtime call each time.
        views.add("chat", from: { $0.chat }, ChatViewModel.init)
        views.add("navigation", from: \.navigation) { navigation in
            NavigationViewModel(navigation) { titles[$0.name] ?? $0.name.capitalized }
        }
        return views
    }()

    /// The middleware, in order.
    public static let middleware: [any Middleware<AppState>] =
        [
            LoginValidationMiddleware(),
            QuoteMiddleware(),
            ShowProfileMiddleware(),
            NavigationMiddleware(\.navigation),
        ] + ChatMiddleware.all

    /// The actions a client may send: what a person does in the web client. The effects' results
    /// (`quote/loaded`, `quote/failed`) and a room's messages (`chat/message`) come from the server only.
    public static var clientActions: [any StoreAction.Type] {
        [
            CounterAction.Increase.self, CounterAction.Decrease.self, CounterAction.Set.self,
            UserAction.Login.self, UserAction.Logout.self,
            QuoteAction.Load.self,
            ProfileAction.Show.self,
            NavigationAction.Push.self, NavigationAction.Pop.self, NavigationAction.PopToRoot.self,
            NavigationAction.ShowModal.self, NavigationAction.DismissModal.self, NavigationAction.SelectTab.self,
            ChatAction.Join.self, ChatAction.Post.self, ChatAction.Leave.self,
        ]
    }

    /// A session hears the topic of the chat room it joined.
    public static let subscriptions = TopicSubscriptions<AppState>(from: { $0.chat.room }) { room in
        room.map { [ChatState.topic(of: $0)] } ?? []
    }

    /// The app, ready for the server or a test store; pass `services` to replace the quote
    /// service or the clock, and `topics` to share the chat's rooms with other definitions (nil: the server's
    /// hub, or a test store's).
    public static func definition(
        services: Services = Services(),
        configuration: StoreConfiguration = StoreConfiguration(),
        topics: TopicHub? = nil
    ) -> StoreDefinition<AppState> {
        StoreDefinition(
            initialState: AppState(),
            reducer: reducer,
            middleware: middleware,
            projections: projections,
            clientActions: clientActions,
            services: services,
            configuration: configuration,
            onRestore: restore,
            subscriptions: subscriptions,
            topics: topics
        )
    }
}
