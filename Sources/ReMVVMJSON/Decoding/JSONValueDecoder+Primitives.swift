import Foundation

/// Conversions from a `JSONValue` to the types containers decode directly, with `JSONDecoder`'s rules and errors.
extension JSONValueDecoder {
    /// Only a JSON boolean; `null` is a type mismatch here, not a missing value, as in `JSONDecoder`.
    static func bool(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Bool {
        guard case .bool(let bool) = value else {
            throw DecodingError.mismatch(Bool.self, found: value, at: path())
        }
        return bool
    }

    /// Only a JSON string.
    static func string(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> String {
        switch value {
        case .string(let string): return string
        case .null: throw DecodingError.null(String.self, at: path())
        default: throw DecodingError.mismatch(String.self, found: value, at: path())
        }
    }

    /// An integral number that fits `T`; `2.0` is accepted as `2`, as `JSONDecoder` accepts it.
    static func integer<T: FixedWidthInteger>(
        _ value: JSONValue,
        as type: T.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> T {
        switch value {
        case .int(let integer):
            if let result = T(exactly: integer) { return result }
        case .double(let double):
            // Doubles of magnitude 2^63 and more are what the parser makes of integers too long for Int64, already
            // rounded: decoding them would quietly hand over a number the client never sent.
            if double.magnitude < 0x1p63, let result = T(exactly: double) { return result }
        case .null:
            throw DecodingError.null(T.self, at: path())
        default:
            throw DecodingError.mismatch(T.self, found: value, at: path())
        }
        throw DecodingError.unrepresentable(value, at: path())
    }

    /// Any number, rounded to `T`; like `JSONDecoder`, numbers that overflow to infinity or underflow to zero in
    /// `T` are refused.
    static func floatingPoint<T: BinaryFloatingPoint>(
        _ value: JSONValue,
        as type: T.Type,
        at path: @autoclosure () -> CodingPathNode
    ) throws -> T {
        switch value {
        case .int(let integer):
            return T(integer)
        case .double(let double):
            let result = T(double)
            if result.isFinite, result != 0 || double == 0 { return result }
        case .null:
            throw DecodingError.null(T.self, at: path())
        default:
            throw DecodingError.mismatch(T.self, found: value, at: path())
        }
        throw DecodingError.unrepresentable(value, at: path())
    }

    /// Seconds since 2001-01-01, `JSONDecoder`'s default `.deferredToDate`, which is what `Date(from:)` reads.
    static func date(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Date {
        if case .null = value { throw DecodingError.null(Date.self, at: path()) }
        return Date(timeIntervalSinceReferenceDate: try floatingPoint(value, as: Double.self, at: path()))
    }

    /// A string `URL(string:)` accepts.
    static func url(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> URL {
        if case .null = value { throw DecodingError.null(URL.self, at: path()) }
        guard let url = URL(string: try string(value, at: path())) else {
            throw DecodingError.corrupted("Invalid URL string.", at: path())
        }
        return url
    }

    /// A base64 string, `JSONDecoder`'s default data strategy.
    static func data(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Data {
        if case .null = value { throw DecodingError.null(Data.self, at: path()) }
        guard let data = Data(base64Encoded: try string(value, at: path())) else {
            throw DecodingError.corrupted("Encountered Data is not valid Base64.", at: path())
        }
        return data
    }

    /// A number. Doubles go through their shortest digits, which for the usual short literals (`3.14`) are the
    /// digits the client sent, so the decimal is exact where `Decimal(Double)` would not be.
    static func decimal(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Decimal {
        switch value {
        case .int(let integer):
            return Decimal(integer)
        case .double(let double):
            guard double.isFinite, let decimal = Decimal(string: double.description) else {
                throw DecodingError.unrepresentable(value, at: path())
            }
            return decimal
        case .null:
            throw DecodingError.null(Decimal.self, at: path())
        default:
            // `JSONDecoder` gives this one no description.
            let context = DecodingError.Context(codingPath: path().keys, debugDescription: "")
            throw DecodingError.typeMismatch(Decimal.self, context)
        }
    }
}
