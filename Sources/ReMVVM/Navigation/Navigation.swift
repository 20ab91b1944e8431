/// Navigation as state (ReMVVMExt's navigation, MVVMR's router): tabs, each with a stack of
/// screens, and modals presented over them.
///
/// Lift ``reducer`` into the app's state with the navigation's key path and register a
/// ``NavigationViewModel`` projection; the client then renders whatever this state says.
public struct Navigation: Codable, Equatable, Sendable {
    /// A tab and its stack of screens, root first.
    public struct Tab: Codable, Equatable, Sendable {
        /// The tab's id (`home`).
        public var id: String
        /// The tab's stack of screens, root first; never empty.
        public var stack: [Screen]

        /// A tab whose stack starts at `root`.
        public init(id: String, root: Screen) {
            self.id = id
            stack = [root]
        }
    }

    /// A modal presentation with its own stack, root first.
    public struct Modal: Codable, Equatable, Sendable {
        /// The modal's stack of screens, root first; never empty.
        public var stack: [Screen]
    }

    /// The tabs, in display order; never empty.
    public private(set) var tabs: [Tab]
    /// The selected tab's id.
    public private(set) var selectedTab: String
    /// The modals presented, bottom first.
    public private(set) var modals: [Modal] = []

    /// Navigation with these tabs, the first one selected.
    public init(tabs: [Tab]) {
        precondition(!tabs.isEmpty, "navigation needs at least one tab")
        self.tabs = tabs
        selectedTab = tabs[0].id
    }

    /// The stack the user sees: the top modal's, or else the selected tab's.
    public var visibleStack: [Screen] {
        modals.last?.stack ?? tabs.first { $0.id == selectedTab }?.stack ?? []
    }

    /// The screen on top of everything.
    public var topScreen: Screen? { visibleStack.last }

    /// Whether a tab with this id exists.
    public func hasTab(_ id: String) -> Bool { tabs.contains { $0.id == id } }

    /// Pushes a screen on the visible stack.
    public mutating func push(_ screen: Screen) {
        updateVisibleStack { $0.append(screen) }
    }

    /// Pops the top screen of the visible stack, keeping its root.
    public mutating func pop() {
        updateVisibleStack { if $0.count > 1 { $0.removeLast() } }
    }

    /// Pops the visible stack to its root.
    public mutating func popToRoot() {
        updateVisibleStack { $0.removeLast(max($0.count - 1, 0)) }
    }

    /// Presents a screen modally, over everything.
    public mutating func showModal(_ screen: Screen) {
        modals.append(Modal(stack: [screen]))
    }

    /// Dismisses the top modal.
    public mutating func dismissModal() {
        if !modals.isEmpty { modals.removeLast() }
    }

    /// Selects a tab; unknown ids are ignored (``NavigationMiddleware`` blocks them first).
    public mutating func selectTab(_ id: String) {
        if hasTab(id) { selectedTab = id }
    }

    private mutating func updateVisibleStack(_ update: (inout [Screen]) -> Void) {
        if !modals.isEmpty {
            update(&modals[modals.count - 1].stack)
        } else if let index = tabs.firstIndex(where: { $0.id == selectedTab }) {
            update(&tabs[index].stack)
        }
    }
}
