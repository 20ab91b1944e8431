import Foundation

/// Types the encoder converts directly instead of calling `encode(to:)`, which is both faster (no nested encoder)
/// and how `JSONEncoder` gives `Date`, `URL`, `Data` and `Decimal` their JSON shapes.
protocol JSONPrimitiveEncodable: Encodable {
    /// The JSON form, or `nil` when JSON cannot represent the value (NaN, infinity).
    var primitiveJSONValue: JSONValue? { get }
}

extension JSONValueEncoder {
    /// Whether `type` conforms to ``JSONPrimitiveEncodable``, decided by comparing metatypes: a cast to the
    /// existential (`as? any JSONPrimitiveEncodable`) looks the conformance up in the runtime's cache,
    /// which cost more than encoding a small view model whole.
    static func isPrimitive(_ type: any Encodable.Type) -> Bool {
        if type == String.self || type == Int.self || type == Bool.self || type == Double.self
            || type == JSONValue.self || type == Int64.self || type == Float.self
        {
            return true
        }
        if type == Int8.self || type == Int16.self || type == Int32.self || type == UInt.self
            || type == UInt8.self || type == UInt16.self || type == UInt32.self || type == UInt64.self
        {
            return true
        }
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *),
            type == Int128.self || type == UInt128.self
        {
            return true
        }
        return type == Date.self || type == URL.self || type == Data.self || type == Decimal.self
    }
}

extension JSONValue: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { self }
}

extension Bool: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .bool(self) }
}

extension String: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .string(self) }
}

extension Double: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { isFinite ? .double(self) : nil }
}

extension Float: JSONPrimitiveEncodable {
    /// Goes through the shortest decimal form, as `JSONEncoder` does, so `Float(1.1)` becomes `1.1`
    /// rather than `1.100000023841858`.
    var primitiveJSONValue: JSONValue? {
        guard isFinite else { return nil }
        return .double(Double(description) ?? Double(self))
    }
}

extension Int: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension Int8: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension Int16: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension Int32: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension Int64: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(self) }
}

extension UInt: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { Int64(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}

extension UInt8: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension UInt16: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension UInt32: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { .int(Int64(self)) }
}

extension UInt64: JSONPrimitiveEncodable {
    /// Values above `Int64.max` become doubles, exactly what parsing `JSONEncoder`'s digits would give.
    var primitiveJSONValue: JSONValue? { Int64(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension Int128: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { Int64(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension UInt128: JSONPrimitiveEncodable {
    var primitiveJSONValue: JSONValue? { Int64(exactly: self).map(JSONValue.int) ?? .double(Double(self)) }
}

extension Date: JSONPrimitiveEncodable {
    /// Seconds since 1970 as a double, like `JSONEncoder.DateEncodingStrategy.secondsSince1970` and what a
    /// JavaScript client turns into a `Date` with `new Date(seconds * 1000)`. (`JSONEncoder`'s default,
    /// `.deferredToDate`, would write seconds since 2001, which no client expects.)
    var primitiveJSONValue: JSONValue? {
        let seconds = timeIntervalSince1970
        return seconds.isFinite ? .double(seconds) : nil
    }
}

extension URL: JSONPrimitiveEncodable {
    /// The absolute string, as `JSONEncoder` writes it, rather than URL's own keyed `relative`/`base` form.
    var primitiveJSONValue: JSONValue? { .string(absoluteString) }
}

extension Data: JSONPrimitiveEncodable {
    /// Base64, `JSONEncoder`'s default data strategy.
    var primitiveJSONValue: JSONValue? { .string(base64EncodedString()) }
}

extension Decimal: JSONPrimitiveEncodable {
    /// A JSON number read back from the decimal's digits, the same value parsing `JSONEncoder`'s output gives
    /// (`.int` when it fits, otherwise `.double`); NaN has no JSON form.
    var primitiveJSONValue: JSONValue? {
        guard !isNaN, let number = try? JSONValue(parsing: Array(description.utf8)) else { return nil }
        switch number {
        case .int, .double: return number
        default: return nil
        }
    }
}
