import ReMVVM

/// The user substate's reducers.
enum UserReducer {
    static let reducer = AnyReducer<UserState>(
        .on(UserAction.Login.self) { _, action in
            var user = UserState()
            user.firstName = action.firstName
            user.lastName = action.lastName
            user.loggedIn = true
            return user
        },
        .on(UserAction.Logout.self) { _, _ in UserState() }
    )
}
