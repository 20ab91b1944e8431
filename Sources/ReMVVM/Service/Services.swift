/// The services side effects use, looked up by key: the server-side `ServiceProvider`.
///
/// Each service has a live default; tests replace it (`services[QuoteServiceKey.self] = Mock()`),
/// so effects never reach the network or the wall clock unless the app wants them to.
public struct Services: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Services with every key at its default value.
    public init() {}

    /// The service registered for `key`, or the key's default.
    public subscript<Key: ServiceKey>(key: Key.Type) -> Key.Value {
        get { (storage[ObjectIdentifier(key)] as? Key.Value) ?? Key.defaultValue }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// A copy with `value` registered for `key`.
    public func with<Key: ServiceKey>(_ key: Key.Type, _ value: Key.Value) -> Services {
        var copy = self
        copy[key] = value
        return copy
    }
}

/// Names one service and gives its live default.
public protocol ServiceKey {
    /// The service's type, usually an existential such as `any QuoteService`.
    associatedtype Value: Sendable
    /// The service used when nobody registered another.
    static var defaultValue: Value { get }
}
