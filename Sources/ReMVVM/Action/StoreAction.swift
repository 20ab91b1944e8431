/// A description of one state change, the only way a store's state changes.
///
/// Actions are plain `Codable` values so that a client can send them as JSON and the server can
/// log them; each type is known on the wire by a stable ``wireName`` such as `counter/increase`.
public protocol StoreAction: Codable, Sendable {
    /// The stable name the action travels under (`area/verb`), independent of the Swift type name.
    static var wireName: String { get }
}

extension StoreAction {
    /// The wire name of this action's type, for logs and inspectors.
    public var wireName: String { Self.wireName }
}

extension StoreAction {
    /// This action as `type`, if that is exactly its type.
    ///
    /// Every reducer and typed middleware asks each action this, in generic code the compiler cannot specialize
    /// for the app's types. Comparing the type objects is one comparison; the checked cast that follows is from
    /// a type to itself, so it cannot fail. An `as?`, with or without that comparison, cost a third more per
    /// dispatch of the example app (remvvm-bench "example app (4 middleware, 5 views)": about 1,750 ns against
    /// 1,250 ns): unspecialized, a conditional cast instantiates `Optional<Other>`'s metadata on every call.
    @inline(__always)
    func exactly<Other: StoreAction>(_ type: Other.Type) -> Other? {
        guard Self.self == Other.self else { return nil }
        // swift-format-ignore: NeverForceUnwrap
        return (self as! Other)  // The same type: the checked cast cannot fail.
    }
}
