import ExampleApp
import ReMVVMJSON
import Testing

@_spi(ReMVVMServer) @testable import ReMVVM

/// The example app's view models through the byte encoder, which every dispatch answer uses.
@Suite("Example view models as JSON bytes")
struct ViewJSONBytesTests {
    /// One view model and the bytes the tree encoder gives for it.
    struct Case: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let viewModel: any ViewModel
    }

    static let cases: [Case] = {
        var user = UserState()
        user.firstName = "Ada"
        user.lastName = "Lovelace \"Countess\" é"
        user.loggedIn = true
        var loading = QuoteState()
        loading.loading = true
        var loaded = QuoteState()
        loaded.text = "Simplicity is prerequisite\nfor reliability."
        var failed = QuoteState()
        failed.error = "no quote about 'x'"
        failed.text = "stale"
        var navigation = AppState().navigation
        navigation.push(Screen("profile", params: ["user": "ada", "tab": "info"]))
        navigation.showModal(Screen("login"))
        return [
            Case(testDescription: "counter", viewModel: CounterViewModel(5)),
            Case(testDescription: "negative counter", viewModel: CounterViewModel(-12_345)),
            Case(testDescription: "login, logged out", viewModel: LoginViewModel(UserState())),
            Case(testDescription: "login, logged in", viewModel: LoginViewModel(user)),
            Case(testDescription: "greeting, logged out", viewModel: GreetingViewModel(UserState())),
            Case(testDescription: "greeting, logged in", viewModel: GreetingViewModel(user)),
            Case(testDescription: "quote, idle", viewModel: QuoteViewModel(QuoteState())),
            Case(testDescription: "quote, loading", viewModel: QuoteViewModel(loading)),
            Case(testDescription: "quote, loaded", viewModel: QuoteViewModel(loaded)),
            Case(testDescription: "quote, failed", viewModel: QuoteViewModel(failed)),
            Case(testDescription: "navigation, start", viewModel: NavigationViewModel(AppState().navigation)),
            Case(testDescription: "navigation, pushed and modal", viewModel: NavigationViewModel(navigation)),
        ]
    }()

    @Test(arguments: cases)
    func byteEncoderMatchesTheTree(_ example: Case) throws {
        let tree = try JSONValue(encoding: example.viewModel).serialized()
        let written = JSONValue.directSerialization(of: example.viewModel)
        let fast = try #require(written, "the byte encoder gave up")
        #expect(String(decoding: fast, as: UTF8.self) == String(decoding: tree, as: UTF8.self))
        #expect(try JSONValue.serializedEncoding(of: example.viewModel) == tree)
    }

    @Test func everySnapshotOfTheAppWritesTheTreesBytes() throws {
        let store = ExampleApp.definition().makeStore()
        try store.dispatch(CounterAction.Increase())
        try store.dispatch(UserAction.Login(firstName: "Ada", lastName: "Lovelace"))
        for snapshot in store.views(store.allViews).snapshots {
            #expect(try snapshot.jsonBytes() == snapshot.json().serialized(), "view \(snapshot.name)")
        }
    }

    /// Long-poll and event patches are diffed on these bytes; if the byte differ refused them, every patch
    /// would quietly fall back to replacing the whole view. Each pair of the app's view models must be diffed,
    /// and the patch must lead from the one to the other.
    @Test(arguments: cases)
    func patchesBetweenTheAppsViewsAreDiffedOnTheirBytes(_ old: Case) throws {
        let oldBytes = try JSONValue.serializedEncoding(of: old.viewModel)
        for new in Self.cases where type(of: new.viewModel) == type(of: old.viewModel) {
            let newBytes = try JSONValue.serializedEncoding(of: new.viewModel)
            let direct = try #require(
                JSONPatch.serializedDiff(fromSerialized: oldBytes, to: newBytes),
                "\(old.testDescription) -> \(new.testDescription) was not diffed")
            let patch = try JSONPatch(parsing: JSONValue(parsing: direct))
            let applied = try patch.apply(to: JSONValue(encoding: old.viewModel))
            #expect(
                applied == (try JSONValue(encoding: new.viewModel)), "\(old.testDescription) -> \(new.testDescription)")
        }
    }
}
