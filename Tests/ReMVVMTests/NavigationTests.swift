@_spi(ReMVVMServer) import ReMVVM
import Testing

@Suite("Navigation")
struct NavigationTests {
    static let start = Navigation(tabs: [
        Navigation.Tab(id: "home", root: Screen("home")),
        Navigation.Tab(id: "settings", root: Screen("settings")),
    ])

    struct Case: Sendable, CustomStringConvertible {
        let actions: [any StoreAction]
        let stack: [String]
        var modal: [String]? = nil
        var description: String { actions.map { $0.wireName }.joined(separator: ", ") }
    }

    typealias Nav = NavigationAction

    static let cases: [Case] = [
        Case(actions: [Nav.Push(Screen("a"))], stack: ["home", "a"]),
        Case(actions: [Nav.Push(Screen("a")), Nav.Push(Screen("b")), Nav.Pop()], stack: ["home", "a"]),
        Case(actions: [Nav.Push(Screen("a")), Nav.Push(Screen("b")), Nav.PopToRoot()], stack: ["home"]),
        Case(actions: [Nav.ShowModal(Screen("m"))], stack: ["home"], modal: ["m"]),
        Case(actions: [Nav.ShowModal(Screen("m")), Nav.Push(Screen("n"))], stack: ["home"], modal: ["m", "n"]),
        Case(actions: [Nav.ShowModal(Screen("m")), Nav.DismissModal()], stack: ["home"]),
        Case(actions: [Nav.SelectTab("settings"), Nav.Push(Screen("s"))], stack: ["settings", "s"]),
        Case(actions: [Nav.Pop()], stack: ["home"]),
    ]

    @Test(arguments: cases)
    func reducerProducesStacks(_ example: Case) {
        var state = Self.start
        for action in example.actions { _ = Navigation.reducer.reduce(&state, with: action) }
        let model = NavigationViewModel(state)
        #expect(model.stack.map(\.name) == example.stack)
        #expect(model.modal?.stack.map(\.name) == example.modal)
    }

    @Test func viewModelMarksSelectedTabAndTitles() {
        var state = Self.start
        state.selectTab("settings")
        let model = NavigationViewModel(state)
        #expect(model.tabs.map(\.id) == ["home", "settings"])
        #expect(model.tabs.map(\.selected) == [false, true])
        #expect(model.tabs.map(\.title) == ["Home", "Settings"])
    }

    static let impossible: [Case] = [
        Case(actions: [Nav.SelectTab("nope")], stack: ["unknown tab 'nope'"]),
        Case(actions: [Nav.Pop()], stack: ["already at the root screen"]),
        Case(actions: [Nav.DismissModal()], stack: ["no modal is shown"]),
    ]

    /// `stack` holds the expected reason here.
    @Test(arguments: impossible)
    func middlewareBlocksImpossibleNavigation(_ example: Case) throws {
        let action = example.actions[0]
        let reason = example.stack[0]
        let store = Store(
            state: Self.start,
            reducer: Navigation.reducer,
            middleware: [NavigationMiddleware { $0 }]
        )
        #expect(try store.dispatch([action]).results == [.blocked(reason: reason)])
        #expect(store.state == Self.start)
    }
}
