import ExampleApp
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Testing

/// A quote service for tests: answers at once, or fails for the category "broken".
struct StubQuotes: QuoteService {
    let mock = MockService<String, String> { category in
        if category == "broken" { throw LocalQuoteService.Failure(category: category) }
        return "A stub quote about \(category)."
    }

    func quote(category: String) async throws -> String { try await mock(category) }
}

/// The example app under test, with `quotes` as its quote service and `clock` (by default one that never waits);
/// its failures go to `failures` when given, as Swift Testing issues otherwise.
func makeTestStore(
    quotes: any QuoteService,
    clock: any Clock<Duration> = ImmediateClock(),
    failures: Failures? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> TestStore<AppState> {
    var services = Services()
    services.quotes = quotes
    services.clock = clock
    let definition = ExampleApp.definition(services: services)
    guard let failures else { return TestStore(definition, sourceLocation: sourceLocation) }
    return TestStore(definition, sourceLocation: sourceLocation) { failures.add($0, at: $1) }
}

@Suite("Example app")
struct ExampleAppTests {
    let quotes = StubQuotes()

    func makeStore() -> TestStore<AppState> { makeTestStore(quotes: quotes) }

    @Test func counterIncreasesDecreasesAndSets() throws {
        let store = makeStore()
        store.send(CounterAction.Increase()) { $0.counter = 1 }
        store.send(CounterAction.Increase()) { $0.counter = 2 }
        store.send(CounterAction.Decrease()) { $0.counter = 1 }
        store.send(CounterAction.Set(value: 42)) { $0.counter = 42 }
        #expect(store.view("counter", as: CounterViewModel.self) == CounterViewModel(42))
    }

    @Test func loginWithAnEmptyNameIsBlockedWithAReason() throws {
        let store = makeStore()
        let outcome = store.send(UserAction.Login(firstName: "Ada", lastName: "  "))
        #expect(outcome?.results == [.blocked(reason: "first name and last name are required")])
        #expect(store.view("greeting", as: GreetingViewModel.self)?.text == "")
    }

    @Test func loginGreetsAndLogoutClears() throws {
        let store = makeStore()
        store.send(UserAction.Login(firstName: " Ada", lastName: "Lovelace")) {
            $0.user.firstName = "Ada"
            $0.user.lastName = "Lovelace"
            $0.user.loggedIn = true
        }
        #expect(store.view("greeting", as: GreetingViewModel.self)?.text == "Hello Ada Lovelace")
        store.send(UserAction.Logout()) { $0.user = UserState() }
        #expect(store.view("login", as: LoginViewModel.self)?.firstName == "")
    }

    @Test func quoteLoadsThroughTheInjectedService() async throws {
        let store = makeStore()
        store.send(QuoteAction.Load(category: "science")) { $0.quote.loading = true }
        #expect(store.view("quote", as: QuoteViewModel.self)?.loading == true)
        await store.receive(QuoteAction.Loaded.self) {
            $0.quote.loading = false
            $0.quote.text = "A stub quote about science."
        }
        #expect(quotes.mock.calls == ["science"])
        store.assertNoPendingActions()
    }

    @Test func quoteFailureReachesTheView() async throws {
        let store = makeStore()
        store.send(QuoteAction.Load(category: "broken")) { $0.quote.loading = true }
        await store.receive(QuoteAction.Failed.self) {
            $0.quote.loading = false
            $0.quote.error = "no quotes about 'broken'"
        }
        #expect(store.view("quote", as: QuoteViewModel.self)?.error == "no quotes about 'broken'")
    }

    @Test func showProfilePresentsLoginWhenLoggedOutAndPushesWhenLoggedIn() throws {
        let store = makeStore()
        store.send(ProfileAction.Show()) { $0.navigation.showModal(Screen("login")) }
        store.send(UserAction.Login(firstName: "Ada", lastName: "Lovelace")) {
            $0.user.firstName = "Ada"
            $0.user.lastName = "Lovelace"
            $0.user.loggedIn = true
            $0.navigation.dismissModal()
        }
        store.send(ProfileAction.Show()) {
            $0.navigation.push(Screen("profile", params: ["name": "Ada Lovelace"]))
        }
        let navigation = store.view("navigation", as: NavigationViewModel.self)
        #expect(navigation?.stack.map(\.title) == ["Home", "Profile"])
        let again = store.send(ProfileAction.Show())
        #expect(again?.results == [.blocked(reason: "the profile is already shown")])
    }

    @Test func localQuoteServiceIsDeterministic() async throws {
        let service = LocalQuoteService(delay: .zero, clock: ImmediateClock())
        let first = try await service.quote(category: "humor")
        let second = try await service.quote(category: "humor")
        let third = try await service.quote(category: "humor")
        #expect(first != second)
        #expect(first == third)
        await #expect(throws: LocalQuoteService.Failure.self) { try await service.quote(category: "poetry") }
    }

    @Test func everyActionTheClientSendsIsRegistered() {
        let names = ExampleApp.definition().actions.wireNames
        #expect(names.contains("counter/increase"))
        #expect(names.contains("quote/load"))
        #expect(names.contains("profile/show"))
        #expect(names.contains("navigation/selectTab"))
        for name in ["chat/join", "chat/leave", "chat/post", "chat/message"] { #expect(names.contains(name)) }
        // Receipts of topic messages are the store's to write, never a client's.
        #expect(!names.contains("topic/receipt"))
        #expect(names.count == 19)
    }
}
