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
    /// This action as `type`, if that is exactly its type; cheaper than `as?`, which also
    /// looks through class hierarchies and bridging that actions never need.
    @inline(__always)
    func exactly<Other: StoreAction>(_ type: Other.Type) -> Other? {
        Self.self == Other.self ? unsafeBitCast(self, to: Other.self) : nil
    }
}
