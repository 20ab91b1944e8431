/// The unkeyed container of `JSONValueDecoder`, walking an array's elements in order.
///
/// Like `JSONDecoder`'s, it advances only past elements it decoded; a failed `decode` leaves `currentIndex` on
/// the element, and `decodeIfPresent` at the end returns `nil` (and still counts a step) instead of throwing.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    private let decoder: JSONValueDecoder
    private let elements: [JSONValue]
    private let path: CodingPathNode
    private(set) var currentIndex = 0

    /// Opens `value` as an array, or throws what `JSONDecoder` throws for `null` and other JSON types.
    init(decoder: JSONValueDecoder, value: JSONValue, path: CodingPathNode) throws {
        guard case .array(let elements) = value else {
            throw DecodingError.container([Any].self, kind: "unkeyed", found: value, at: path)
        }
        self.decoder = decoder
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try next(Never.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try JSONValueDecoder.bool(try next(type), at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: String.Type) throws -> String {
        let result = try JSONValueDecoder.string(try next(type), at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode(_ type: Double.Type) throws -> Double { try floatingPoint(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try floatingPoint(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer(type) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try decoder.unwrap(try next(type), as: type, at: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        let result = try presentNext().map { try JSONValueDecoder.bool($0, at: currentPath) }
        currentIndex += 1
        return result
    }

    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        let result = try presentNext().map { try JSONValueDecoder.string($0, at: currentPath) }
        currentIndex += 1
        return result
    }

    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? { try floatingPointIfPresent(type) }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? { try floatingPointIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent(type) }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        let result = try presentNext().map { try decoder.unwrap($0, as: type, at: currentPath) }
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next(KeyedDecodingContainer<NestedKey>.self)
        let nested = try JSONKeyedDecodingContainer<NestedKey>(decoder: decoder, value: value, path: currentPath)
        currentIndex += 1
        return KeyedDecodingContainer(nested)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next((any UnkeyedDecodingContainer).self)
        let nested = try JSONUnkeyedDecodingContainer(decoder: decoder, value: value, path: currentPath)
        currentIndex += 1
        return nested
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next((any Decoder).self, atEnd: "Cannot get superDecoder() -- unkeyed container is at end.")
        let superDecoder = decoder.superDecoder(for: value, at: currentPath)
        currentIndex += 1
        return superDecoder
    }

    /// The path of the element at `currentIndex`.
    private var currentPath: CodingPathNode {
        path.appending(JSONCodingKey(intValue: currentIndex))
    }

    /// The element at `currentIndex`, or the `valueNotFound` error `JSONDecoder` throws past the end.
    private func next<T>(_ type: T.Type, atEnd message: String = "Unkeyed container is at end.") throws -> JSONValue {
        guard currentIndex < elements.count else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(codingPath: currentPath.keys, debugDescription: message)
            )
        }
        return elements[currentIndex]
    }

    /// The element at `currentIndex`, or `nil` when it is `null` or the container is at its end.
    private func presentNext() -> JSONValue? {
        guard currentIndex < elements.count else { return nil }
        if case .null = elements[currentIndex] { return nil }
        return elements[currentIndex]
    }

    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let result = try JSONValueDecoder.integer(try next(type), as: type, at: currentPath)
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
        let result = try presentNext().map { try JSONValueDecoder.integer($0, as: type, at: currentPath) }
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func floatingPoint<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T {
        let result = try JSONValueDecoder.floatingPoint(try next(type), as: type, at: currentPath)
        currentIndex += 1
        return result
    }

    @inline(__always)
    private mutating func floatingPointIfPresent<T: BinaryFloatingPoint>(_ type: T.Type) throws -> T? {
        let result = try presentNext().map { try JSONValueDecoder.floatingPoint($0, as: type, at: currentPath) }
        currentIndex += 1
        return result
    }
}
