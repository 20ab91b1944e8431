/// The example app's `counter` view as a client decodes it.
struct CounterView: Codable, Sendable, Equatable {
    var counter: String
}

/// The example app's `login` view as a client decodes it.
struct LoginView: Codable, Sendable, Equatable {
    var firstName: String
    var lastName: String
    var loggedIn: Bool
}
