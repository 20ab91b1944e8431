public import Foundation

/// The projection of ``Navigation`` a client renders: the tabs, the visible stack and the modal.
public struct NavigationViewModel: ViewModel {
    /// A tab as shown in a tab bar.
    public struct Tab: Encodable, Equatable, Sendable {
        /// The tab's id, to send back in `navigation/selectTab`.
        public let id: String
        /// The tab's title.
        public let title: String
        /// Whether it is the selected tab.
        public let selected: Bool
    }

    /// A screen with its display title.
    public struct ScreenModel: Encodable, Equatable, Sendable {
        /// The screen's kind.
        public let name: String
        /// Its title.
        public let title: String
        /// The context it was opened with.
        public let params: [String: String]
    }

    /// A modal's stack.
    public struct ModalModel: Encodable, Equatable, Sendable {
        /// The modal's stack, root first.
        public let stack: [ScreenModel]
    }

    /// The tabs.
    public let tabs: [Tab]
    /// The selected tab's stack, root first.
    public let stack: [ScreenModel]
    /// The top modal, if one is shown.
    public let modal: ModalModel?

    /// Projects `navigation`, naming screens with `title` (by default the capitalized name).
    public init(_ navigation: Navigation, title: @Sendable (Screen) -> String = { $0.name.capitalized }) {
        func model(_ screen: Screen) -> ScreenModel {
            ScreenModel(name: screen.name, title: title(screen), params: screen.params)
        }
        tabs = navigation.tabs.map { tab in
            Tab(id: tab.id, title: tab.stack.first.map(title) ?? tab.id, selected: tab.id == navigation.selectedTab)
        }
        stack = (navigation.tabs.first { $0.id == navigation.selectedTab }?.stack ?? []).map(model)
        modal = navigation.modals.last.map { ModalModel(stack: $0.stack.map(model)) }
    }
}
