import Foundation
import ReMVVMJSON

/// Decodable types exercising every path of `JSONValue.decode`, compared against `JSONDecoder` in
/// `JSONValueDecodingTests`; all are `Equatable` so the two decoders' results can be compared.
enum DecodingFixtures {
    /// The shape of a typical action payload, `{"value": 42}`.
    struct SetValue: Codable, Equatable, Sendable {
        var value: Int
    }

    /// Any type under the single key `value`, so one table can try many types.
    struct Holder<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var value: Value
    }

    /// Any type under an optional `value`, for `decodeIfPresent`.
    struct OptionalHolder<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
        var value: Value?
    }

    struct Address: Codable, Equatable, Sendable {
        var street: String
        var postcode: String?
    }

    struct Profile: Codable, Equatable, Sendable {
        var name: String
        var nickname: String?
        var age: Int?
        var tags: [String]
        var scores: [String: Double]
        var address: Address?
        var optionals: [Int?]
        var byID: [Int: String]?
    }

    enum Shape: Codable, Equatable, Sendable {
        case circle(radius: Double)
        case rectangle(Double, Double)
        case labelled(String, size: Int?)
        case empty
    }

    enum Color: String, Codable, Equatable, Sendable, CodingKeyRepresentable {
        case red, green
    }

    enum Priority: Int, Codable, Equatable, Sendable {
        case low = 1, high = 9
    }

    struct Integers: Codable, Equatable, Sendable {
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64: Int64
        var uint: UInt
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
    }

    struct Floats: Codable, Equatable, Sendable {
        var float: Float
        var double: Double
    }

    struct FoundationValues: Codable, Equatable, Sendable {
        var date: Date
        var url: URL
        var data: Data
        var decimal: Decimal
    }

    struct Dictionaries: Codable, Equatable, Sendable {
        var byString: [String: Int]
        var byInt: [Int: String]
        var byColor: [Color: Int]
        var nested: [String: [String: [Int]]]
    }

    struct HoldsJSON: Codable, Equatable, Sendable {
        var payload: JSONValue
    }

    /// A key for any member name, for the hand-written decoders below.
    struct AnyKey: CodingKey, Equatable, Sendable {
        var stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) {
            stringValue = name
        }

        init(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }

    /// Reads through every kind of nested container by hand, as hand-written `init(from:)` implementations do.
    struct Containers: Decodable, Equatable, Sendable {
        var plain: String
        var explicitNull: Bool
        var nestedPlain: Int
        var deeper: Bool?
        var first: Int
        var secondIsNil: Bool
        var innerPlain: String
        var innerValue: Double
        var after: String
        var fromSuper: String
        var priority: Priority
        var superKeys: Int

        enum Keys: String, CodingKey {
            case plain, nested, list, explicitNull, superKey, deeper
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            plain = try container.decode(String.self, forKey: .plain)
            explicitNull = try container.decodeNil(forKey: .explicitNull)
            let nested = try container.nestedContainer(keyedBy: Keys.self, forKey: .nested)
            nestedPlain = try nested.decode(Int.self, forKey: .plain)
            deeper = try nested.decodeIfPresent(Bool.self, forKey: .deeper)
            var list = try container.nestedUnkeyedContainer(forKey: .list)
            first = try list.decode(Int.self)
            secondIsNil = try list.decodeNil()
            let inner = try list.nestedContainer(keyedBy: Keys.self)
            innerPlain = try inner.decode(String.self, forKey: .plain)
            var innerList = try list.nestedUnkeyedContainer()
            innerValue = try innerList.decode(Double.self)
            after = try list.decode(String.self)
            fromSuper = try list.superDecoder().singleValueContainer().decode(String.self)
            var keyedSuper = try container.superDecoder(forKey: .superKey).unkeyedContainer()
            priority = try keyedSuper.decode(Priority.self)
            superKeys = try container.superDecoder().container(keyedBy: AnyKey.self).allKeys.count
        }
    }

    /// A class that decodes its superclass through `superDecoder()`, the pattern for class hierarchies.
    final class Derived: Decodable, Equatable, Sendable {
        let id: Int
        let title: String

        private enum Keys: String, CodingKey {
            case id, title
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            title = try container.decode(String.self, forKey: .title)
            id = try container.superDecoder().container(keyedBy: Keys.self).decode(Int.self, forKey: .id)
        }

        static func == (left: Derived, right: Derived) -> Bool {
            left.id == right.id && left.title == right.title
        }
    }

    /// Tries one single-value type after another, as free-form decoders (like `JSONValue`'s own) do.
    enum Flexible: Decodable, Equatable, Sendable {
        case null, bool(Bool), int(Int8), double(Float), string(String), list([Flexible])

        init(from decoder: any Decoder) throws {
            if let container = try? decoder.unkeyedContainer() {
                var container = container
                var elements: [Flexible] = []
                while !container.isAtEnd {
                    elements.append(try container.decode(Flexible.self))
                }
                self = .list(elements)
                return
            }
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .null
            } else if let value = try? container.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? container.decode(Int8.self) {
                self = .int(value)
            } else if let value = try? container.decode(Float.self) {
                self = .double(value)
            } else {
                self = .string(try container.decode(String.self))
            }
        }
    }

    /// Records what its containers report and throw, so parity covers container behaviour that decoded values
    /// alone would not show (`count`, `currentIndex`, `contains`, errors that callers catch).
    struct ContainerProbe: Decodable, Equatable, Sendable {
        var log: [String] = []

        init(from decoder: any Decoder) throws {
            let keyed = try decoder.container(keyedBy: AnyKey.self)
            record("keys", keyed.allKeys.map(\.stringValue).sorted())
            record("contains", [keyed.contains(AnyKey("a")), keyed.contains(AnyKey("missing"))])
            for name in ["a", "null", "missing"] {
                attempt("decodeNil \(name)") { try keyed.decodeNil(forKey: AnyKey(name)) }
                attempt("ifPresent Int \(name)") { try keyed.decodeIfPresent(Int.self, forKey: AnyKey(name)) }
                attempt("ifPresent String \(name)") { try keyed.decodeIfPresent(String.self, forKey: AnyKey(name)) }
                attempt("ifPresent Address \(name)") {
                    try keyed.decodeIfPresent(Address.self, forKey: AnyKey(name))
                }
                attempt("Double \(name)") { try keyed.decode(Double.self, forKey: AnyKey(name)) }
                attempt("nested keyed \(name)") {
                    try keyed.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey(name)).allKeys.count
                }
                attempt("super \(name)") {
                    let superDecoder = try keyed.superDecoder(forKey: AnyKey(name))
                    let isNull = try superDecoder.singleValueContainer().decodeNil()
                    return "\(superDecoder.codingPath.map(\.stringValue)) \(isNull)"
                }
            }
            attempt("single on object") { try decoder.singleValueContainer().decode(Int.self) }
            attempt("unkeyed on object") { try decoder.unkeyedContainer().count }
            attempt("list") {
                var list = try keyed.nestedUnkeyedContainer(forKey: AnyKey("list"))
                var steps: [String] = ["count \(String(describing: list.count))"]
                func step(_ label: String, _ body: (inout any UnkeyedDecodingContainer) throws -> Any?) {
                    do {
                        let result = try body(&list)
                        steps.append("\(label) -> \(String(describing: result)) @\(list.currentIndex) \(list.isAtEnd)")
                    } catch {
                        steps.append("\(label) threw \(DecodingErrorSummary(error)) @\(list.currentIndex)")
                    }
                }
                step("decodeNil") { try $0.decodeNil() }
                step("String") { try $0.decode(String.self) }
                step("Int") { try $0.decode(Int.self) }
                step("ifPresent Int") { try $0.decodeIfPresent(Int.self) }
                step("decodeNil") { try $0.decodeNil() }
                step("ifPresent Bool") { try $0.decodeIfPresent(Bool.self) }
                step("Address") { try $0.decode(Address.self) }
                step("ifPresent Address") { try $0.decodeIfPresent(Address.self) }
                step("ifPresent Int") { try $0.decodeIfPresent(Int.self) }
                step("ifPresent Int") { try $0.decodeIfPresent(Int.self) }
                step("Int") { try $0.decode(Int.self) }
                step("Address") { try $0.decode(Address.self) }
                step("decodeNil") { try $0.decodeNil() }
                step("nested keyed") { try $0.nestedContainer(keyedBy: AnyKey.self).allKeys.count }
                step("nested unkeyed") { try $0.nestedUnkeyedContainer().count }
                step("super") { try $0.superDecoder().codingPath.count }
                return steps
            }
        }

        private mutating func record(_ label: String, _ value: Any) {
            log.append("\(label): \(value)")
        }

        private mutating func attempt(_ label: String, _ body: () throws -> Any?) {
            do {
                log.append("\(label) -> \(String(describing: try body()))")
            } catch {
                log.append("\(label) threw \(DecodingErrorSummary(error))")
            }
        }
    }

    /// Members named from `RandomJSON`'s key pool, so random documents sometimes decode.
    struct RandomlyNamed: Decodable, Equatable, Sendable {
        var a: Int?
        var b: String?
        var c: [Double]?
        var id: Int8?
        var name: Bool?
        var items: Flexible?
    }

    /// A required member from `RandomJSON`'s key pool.
    struct RandomlyRequired: Decodable, Equatable, Sendable {
        var id: JSONValue
    }

    /// Cases named from `RandomJSON`'s key pool (random documents rarely hold exactly one of them).
    enum RandomlyPicked: Decodable, Equatable, Sendable {
        case a
        case b(Int)
        case c(name: String?, id: [Int]?)
    }

    /// Reads what the caller put in `userInfo`.
    struct ReadsUserInfo: Decodable, Equatable, Sendable {
        static let key = CodingUserInfoKey(rawValue: "test.tenant")

        var tenant: String?
        var nestedTenant: String?

        private struct Nested: Decodable {
            var tenant: String?

            init(from decoder: any Decoder) throws {
                tenant = ReadsUserInfo.key.flatMap { decoder.userInfo[$0] as? String }
            }
        }

        private enum Keys: String, CodingKey {
            case nested
        }

        init(from decoder: any Decoder) throws {
            tenant = Self.key.flatMap { decoder.userInfo[$0] as? String }
            let container = try decoder.container(keyedBy: Keys.self)
            nestedTenant = try container.decode(Nested.self, forKey: .nested).tenant
        }
    }
}
