import ReMVVMJSON

/// Builds random documents and random edits of them, so diff/apply and parse/serialize round trips are
/// checked on thousands of shapes nobody would write by hand.
struct RandomJSON {
    var generator: SeededGenerator

    /// Keys chosen from a small pool so that random objects overlap, plus the characters pointers escape.
    private static let keys = ["a", "b", "c", "id", "name", "items", "~", "/", "a/b~c", "", "é", "0", "-"]
    private static let strings = ["", "x", "hello", "quote\"", "back\\slash", "line\nbreak", "\u{1}", "日本", "🎉"]

    init(seed: UInt64) {
        generator = SeededGenerator(seed: seed)
    }

    /// A random document nested at most `depth` levels.
    mutating func value(depth: Int = 3) -> JSONValue {
        let kinds = depth > 0 ? 8 : 6
        switch Int.random(in: 0..<kinds, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int64.random(in: -1000...1000, using: &generator))
        case 3: return .double(Double(Int.random(in: -10_000...10_000, using: &generator)) / 8)
        case 4, 5: return .string(Self.strings.randomElement(using: &generator) ?? "")
        case 6:
            let count = Int.random(in: 0...4, using: &generator)
            return .array((0..<count).map { _ in value(depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                members[Self.keys.randomElement(using: &generator) ?? "a"] = value(depth: depth - 1)
            }
            return .object(members)
        }
    }

    /// `value` with a few random edits (changed, inserted, removed members and elements), like consecutive
    /// versions of a view.
    mutating func edited(_ value: JSONValue, depth: Int = 3) -> JSONValue {
        guard Int.random(in: 0..<5, using: &generator) != 0 else { return value }
        switch value {
        case .array(var elements):
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !elements.isEmpty:
                elements.remove(at: Int.random(in: 0..<elements.count, using: &generator))
            case 1:
                elements.insert(self.value(depth: depth - 1), at: Int.random(in: 0...elements.count, using: &generator))
            default:
                elements = elements.map { edited($0, depth: depth - 1) }
            }
            return .array(elements)
        case .object(var members):
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                if let key = members.keys.sorted().randomElement(using: &generator) {
                    members[key] = nil
                }
            case 1:
                members[Self.keys.randomElement(using: &generator) ?? "a"] = self.value(depth: depth - 1)
            default:
                // Sorted, because dictionary order differs between runs and the draws must not.
                for key in members.keys.sorted() {
                    members[key] = members[key].map { edited($0, depth: depth - 1) }
                }
            }
            return .object(members)
        default:
            return self.value(depth: depth)
        }
    }
}
