import ReMVVM

// What the server and its clients share: the actions and the view model, one Swift type on both ends.

/// Adds one.
public struct Increase: StoreAction {
    public static let wireName = "counter/increase"
    public init() {}
}

/// Sets the count; the server blocks a negative one.
public struct SetCount: StoreAction {
    public static let wireName = "counter/set"
    public var count: Int
    public init(count: Int) { self.count = count }
}

/// Adds one after `seconds`, through an effect on the server.
public struct IncreaseLater: StoreAction {
    public static let wireName = "counter/increaseLater"
    public var seconds: Int
    public init(seconds: Int) { self.seconds = seconds }
}

/// What clients see: encoded by the server, decoded by the app.
public struct CounterView: ViewModel, Codable {
    public var count: Int
    public init(count: Int) { self.count = count }
}
