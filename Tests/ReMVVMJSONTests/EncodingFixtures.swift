import Foundation
import ReMVVMJSON

/// Codable types exercising every path of the encoder, compared against `JSONEncoder` in `JSONEncodingTests`.
enum EncodingFixtures {
    struct Counter: Codable, Sendable {
        var counter: String
    }

    struct Address: Codable, Sendable {
        var street: String
        var postcode: String?
    }

    struct Profile: Codable, Sendable {
        var name: String
        var nickname: String?
        var age: Int?
        var tags: [String]
        var scores: [String: Double]
        var address: Address?
        var maybeMaybe: Int??
        var optionals: [Int?]
    }

    enum Shape: Codable, Sendable {
        case circle(radius: Double)
        case rectangle(Double, Double)
        case labelled(String, size: Int?)
        case empty
    }

    enum Color: String, Codable, Sendable, CodingKeyRepresentable {
        case red, green
    }

    enum Priority: Int, Codable, Sendable {
        case low = 1, high = 9
    }

    struct Numbers: Codable, Sendable {
        var int8 = Int8.min
        var int16 = Int16.max
        var int32 = Int32.min
        var int64 = Int64.min
        var uint = UInt.max
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64 = UInt64.max
        var float: Float = 1.1
        var integralFloat: Float = 2
        var double = 0.1
        var integralDouble = 2.0
        var negativeZero = -0.0
        var huge = 1e300
        var tiny = Double.leastNonzeroMagnitude
    }

    struct FoundationValues: Codable, Sendable {
        var date = Date(timeIntervalSince1970: 1_700_000_000.25)
        var url = URL(string: "https://example.com/a/b?c=d#e")
        var data = Data([0, 1, 2, 250, 255])
        var decimal = Decimal(string: "3.14")
        var integralDecimal = Decimal(12)
        var largeDecimal = Decimal(string: "123456789012345678901234567890")
    }

    struct Dictionaries: Codable, Sendable {
        var byString = ["b": 2, "a": 1]
        var byInt = [1: "one", 20: "twenty"]
        var byColor: [Color: Int] = [.red: 1]
        var byBool = [true: "yes"]
        var nested = ["outer": ["inner": [1, 2]]]
    }

    /// Writes through every kind of nested container by hand, as hand-written `encode(to:)` implementations do.
    struct Containers: Encodable, Sendable {
        enum Keys: String, CodingKey {
            case plain, nested, list, explicitNull, superKey, deeper
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("x", forKey: .plain)
            try container.encodeNil(forKey: .explicitNull)
            var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try nested.encode(1, forKey: .plain)
            var again = container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            try again.encode(true, forKey: .deeper)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1)
            try list.encodeNil()
            var inner = list.nestedContainer(keyedBy: Keys.self)
            var innerList = list.nestedUnkeyedContainer()
            try list.encode("after")
            try inner.encode("late", forKey: .plain)
            try innerList.encode(2.5)
            let listSuper = list.superEncoder()
            var listSuperValue = listSuper.singleValueContainer()
            try listSuperValue.encode("from super")
            let keyedSuper = container.superEncoder(forKey: .superKey)
            var keyedSuperList = keyedSuper.unkeyedContainer()
            try keyedSuperList.encode(Priority.high)
            _ = container.superEncoder()
        }
    }

    class Base: Encodable, @unchecked Sendable {
        // Safety: immutable after init.
        let id: Int

        init(id: Int) {
            self.id = id
        }
    }

    /// Encodes its superclass through `superEncoder()`, the pattern for class hierarchies.
    final class Derived: Base, @unchecked Sendable {
        // Safety: immutable after init.
        let title: String

        init(id: Int, title: String) {
            self.title = title
            super.init(id: id)
        }

        private enum Keys: String, CodingKey {
            case title
        }

        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(title, forKey: .title)
            try super.encode(to: container.superEncoder())
        }
    }

    /// Encodes nothing at all, which `JSONEncoder` writes as `{}` when nested and rejects at the top level.
    struct Silent: Encodable, Sendable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct HoldsSilent: Encodable, Sendable {
        var silent = Silent()
    }

    struct HoldsJSON: Codable, Sendable {
        var payload: JSONValue
    }
}
