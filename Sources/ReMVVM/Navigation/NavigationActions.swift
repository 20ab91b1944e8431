/// Navigation actions: push, pop, pop to root, show and dismiss a modal, select a tab.
public enum NavigationAction {
    /// Pushes a screen on the visible stack.
    public struct Push: StoreAction, Equatable {
        public static let wireName = "navigation/push"
        /// The screen to show.
        public var screen: Screen
        /// Pushes `screen`.
        public init(_ screen: Screen) { self.screen = screen }
    }

    /// Pops the top screen of the visible stack.
    public struct Pop: StoreAction, Equatable {
        public static let wireName = "navigation/pop"
        /// Pops one screen.
        public init() {}
    }

    /// Pops the visible stack to its root.
    public struct PopToRoot: StoreAction, Equatable {
        public static let wireName = "navigation/popToRoot"
        /// Pops to the root.
        public init() {}
    }

    /// Presents a screen modally.
    public struct ShowModal: StoreAction, Equatable {
        public static let wireName = "navigation/showModal"
        /// The screen to present.
        public var screen: Screen
        /// Presents `screen`.
        public init(_ screen: Screen) { self.screen = screen }
    }

    /// Dismisses the top modal.
    public struct DismissModal: StoreAction, Equatable {
        public static let wireName = "navigation/dismissModal"
        /// Dismisses one modal.
        public init() {}
    }

    /// Selects a tab.
    public struct SelectTab: StoreAction, Equatable {
        public static let wireName = "navigation/selectTab"
        /// The tab's id.
        public var tab: String
        /// Selects the tab with this id.
        public init(_ tab: String) { self.tab = tab }
    }
}
