/// The decoder is its own single-value container, as `JSONDecoder`'s is: the container reads whatever value the
/// decoder holds now, and asking for it allocates nothing.
extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { true } else { false }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Self.bool(value, at: path) }
    func decode(_ type: String.Type) throws -> String { try Self.string(value, at: path) }
    func decode(_ type: Double.Type) throws -> Double { try Self.floatingPoint(value, as: type, at: path) }
    func decode(_ type: Float.Type) throws -> Float { try Self.floatingPoint(value, as: type, at: path) }
    func decode(_ type: Int.Type) throws -> Int { try Self.integer(value, as: type, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try Self.integer(value, as: type, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Self.integer(value, as: type, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Self.integer(value, as: type, at: path) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { try Self.integer(value, as: type, at: path) }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { try Self.integer(value, as: type, at: path) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try unwrap(value, as: type, at: path)
    }
}
