import ReMVVM

/// Dismisses the login modal once a login went through: a second reducer for `user/login`,
/// on the navigation substate, composed with the user reducer.
enum LoginNavigationReducer {
    static let reducer = AnyReducer<Navigation>.on(UserAction.Login.self) { navigation, _ in
        if navigation.topScreen?.name == "login", !navigation.modals.isEmpty { navigation.dismissModal() }
    }
}
