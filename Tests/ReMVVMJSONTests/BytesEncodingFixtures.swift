import Foundation
import ReMVVMJSON

/// Codable types aimed at the byte encoder's edges: key order, containers used out of order, keys written twice.
enum BytesEncodingFixtures {
    /// Writes the given keys in the given order, each with its position, so tests control the unsorted input.
    struct Keys: Encodable, Sendable {
        let names: [String]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONKey.self)
            for (position, name) in names.enumerated() {
                try container.encode(position, forKey: JSONKey(name))
            }
        }
    }

    /// A coding key from any string.
    struct JSONKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ string: String) { stringValue = string }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Every floating-point and integer edge the serializer has a form for.
    struct Edges: Encodable, Sendable {
        var zero = 0.0
        var negativeZero = -0.0
        var huge = 1e20
        var half = 1.5
        var largest = Double.greatestFiniteMagnitude
        var smallest = Double.leastNonzeroMagnitude
        var small = 1e-7
        var floats: [Float] = [0, -0, 1.1, .greatestFiniteMagnitude, .leastNonzeroMagnitude]
        var int64Min = Int64.min
        var int64Max = Int64.max
        var uint64Max = UInt64.max
        var uintMax = UInt.max
        var mixed: [Int64] = [0, -1, .max, .min]
    }

    /// Strings that need escapes, non-ASCII and emoji, in both keys and values.
    struct Texts: Encodable, Sendable {
        var escapes = "\"quoted\" back\\slash /slash \u{0}\u{1}\u{1F}\u{8}\u{9}\u{A}\u{C}\u{D}\u{7F}"
        var unicode = "é日本🎉\u{2028}\u{FFFF}"
        var byKey = ["tab\there": 1, "quote\"": 2, "é": 3, "a": 4, "B": 5, "aa": 6, "": 7, "a ": 8, "a\u{1}": 9]
    }

    /// A struct with optionals, as synthesized `Codable` writes them (`encodeIfPresent`).
    struct Optionals: Codable, Sendable {
        var some: Int? = 1
        var none: Int?
        var doubly: String?? = .some(nil)
        var list: [String?] = [nil, "x", nil]
        var nested: [[Int?]?] = [nil, [], [nil, 2]]
    }

    /// A class hierarchy that shares one keyed container between subclass and superclass (no `superEncoder`),
    /// which the tree encoder merges into one object.
    class Animal: Encodable, @unchecked Sendable {
        // Safety: immutable after init.
        let legs: Int

        init(legs: Int) { self.legs = legs }

        private enum Keys: String, CodingKey { case legs }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(legs, forKey: .legs)
        }
    }

    /// See ``Animal``.
    final class Dog: Animal, @unchecked Sendable {
        // Safety: immutable after init.
        let name: String

        init(name: String) {
            self.name = name
            super.init(legs: 4)
        }

        private enum Keys: String, CodingKey { case name, bark }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(name, forKey: .name)
            try super.encode(to: encoder)
            try container.encode(true, forKey: .bark)
        }
    }

    /// Nested containers and super encoders used in order, each finished before its parent writes again.
    struct OrderedNesting: Encodable, Sendable {
        private enum Keys: String, CodingKey { case zeta, alpha, list, middle, empty, superKey }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("z", forKey: .zeta)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .middle)
            try nested.encode(2, forKey: .zeta)
            try nested.encode(1, forKey: .alpha)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            var inner = list.nestedContainer(keyedBy: Keys.self)
            try inner.encode("in", forKey: .alpha)
            var innerList = list.nestedUnkeyedContainer()
            try innerList.encode(2.5)
            try innerList.encodeNil()
            try list.encode("after")
            _ = list.superEncoder()
            _ = list.nestedUnkeyedContainer()
            _ = container.nestedContainer(keyedBy: Keys.self, forKey: .empty)
            var superValue = container.superEncoder(forKey: .superKey).singleValueContainer()
            try superValue.encode(EncodingFixtures.Priority.high)
            try container.encode("a", forKey: .alpha)
            _ = container.superEncoder()
        }
    }

    /// A single value whose content encodes nothing, which becomes `{}` even at the top level.
    struct WrapsSilent: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(EncodingFixtures.Silent())
        }
    }

    /// Reads coding paths while encoding and writes them out, so a wrong path changes the bytes.
    struct PathEcho: Encodable, Sendable {
        struct Leaf: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(encoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
            }
        }

        var leaf = Leaf()
        var list = [Leaf(), Leaf()]
        var byInt = [7: Leaf()]
        var byName = ["n": [Leaf()]]
    }

    // MARK: Values the byte encoder leaves to the tree

    /// Writes `key` twice; the tree keeps the last value.
    struct SameKeyTwice: Encodable, Sendable {
        private enum Keys: String, CodingKey { case key, other }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .key)
            try container.encode(2, forKey: .other)
            try container.encode("last", forKey: .key)
        }
    }

    /// Writes into a nested container after its parent moved on; the tree still places the write.
    struct LateNestedWrite: Encodable, Sendable {
        private enum Keys: String, CodingKey { case nested, after, late }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try container.encode(1, forKey: .after)
            try nested.encode(2, forKey: .late)
        }
    }

    /// Uses a super encoder after its parent wrote again.
    struct LateSuperEncoder: Encodable, Sendable {
        private enum Keys: String, CodingKey { case first, second }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            let late = container.superEncoder(forKey: .first)
            try container.encode(1, forKey: .second)
            var single = late.singleValueContainer()
            try single.encode("late")
        }
    }

    /// Keys that differ in bytes but are equal as `String`s; the tree's dictionary keeps one of them.
    struct CanonicallyEqualKeys: Encodable, Sendable {
        let first: String
        let second: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: JSONKey.self)
            try container.encode(1, forKey: JSONKey(first))
            try container.encode(2, forKey: JSONKey(second))
        }
    }

    /// Writes its single value twice; the tree keeps the last.
    struct SingleValueTwice: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(1)
            try container.encode("two")
        }
    }

    /// Asks for an unkeyed container after a keyed one; the tree keeps the last.
    struct SwitchesContainers: Encodable, Sendable {
        private enum Keys: String, CodingKey { case a }

        func encode(to encoder: any Encoder) throws {
            var keyed = encoder.container(keyedBy: Keys.self)
            try keyed.encode(1, forKey: .a)
            var unkeyed = encoder.unkeyedContainer()
            try unkeyed.encode(2)
        }
    }

    /// Holds a value that cannot be encoded, deep inside.
    struct HoldsNaN: Encodable, Sendable {
        var values: [String: [Double]] = ["x": [1, .nan]]
    }
}
