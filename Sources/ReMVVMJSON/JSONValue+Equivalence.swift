extension JSONValue {
    /// Compares as RFC 6902's `test` operation does: numbers by value (`2` equals `2.0`), everything else
    /// structurally, so documents from different producers (JSONEncoder writes `2.0` as `2`) can be compared.
    public func isEquivalent(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let left), .int(let right)):
            return left == right
        case (.double(let left), .double(let right)):
            return left == right
        case (.int(let integer), .double(let double)), (.double(let double), .int(let integer)):
            return Int64(exactly: double) == integer
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isEquivalent(to: $1) }
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            return left.allSatisfy { key, value in right[key].map { value.isEquivalent(to: $0) } ?? false }
        default:
            return self == other
        }
    }
}
