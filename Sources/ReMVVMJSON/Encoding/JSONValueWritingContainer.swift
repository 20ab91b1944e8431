/// A single-value or unkeyed encoding container that turns every primitive into a `JSONValue` (or hands
/// it on as a ``JSONPrimitiveEncodable`` where JSON cannot always hold it) and writes it in one place.
///
/// Both encoders (the `JSONValue` tree and the bytes writer) have one of each kind of container, and the
/// `Encoder` protocols ask every one of them for the same primitive overloads: this extension writes those
/// once, so the four containers only say where a value goes. (`Int128` and `UInt128` stay in each container:
/// the standard library has defaults for them, which an extension here could not override unambiguously.)
protocol JSONValueWritingContainer {
    /// Writes a value JSON holds exactly as it is.
    mutating func write(_ value: JSONValue) throws
    /// Writes a value that may not fit JSON (non-finite floats, integers beyond `Int64`).
    mutating func writePrimitive(_ value: some JSONPrimitiveEncodable) throws
}

// Inlined into each container's witness, so a call knows the container's type and needs no runtime lookup of
// its conformance to this protocol (which cost more than writing the value).
extension JSONValueWritingContainer {
    @inline(__always) mutating func encodeNil() throws { try write(.null) }
    @inline(__always) mutating func encode(_ value: Bool) throws { try write(.bool(value)) }
    @inline(__always) mutating func encode(_ value: String) throws { try write(.string(value)) }
    @inline(__always) mutating func encode(_ value: Double) throws { try writePrimitive(value) }
    @inline(__always) mutating func encode(_ value: Float) throws { try writePrimitive(value) }
    @inline(__always) mutating func encode(_ value: Int) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: Int8) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: Int16) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: Int32) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: Int64) throws { try write(.int(value)) }
    @inline(__always) mutating func encode(_ value: UInt) throws { try writePrimitive(value) }
    @inline(__always) mutating func encode(_ value: UInt8) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: UInt16) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: UInt32) throws { try write(.int(Int64(value))) }
    @inline(__always) mutating func encode(_ value: UInt64) throws { try writePrimitive(value) }
}

/// The keyed counterpart of ``JSONValueWritingContainer``, for the keyed containers of both encoders.
protocol JSONValueWritingKeyedContainer: KeyedEncodingContainerProtocol {
    /// Writes a member JSON holds exactly as it is.
    mutating func write(_ value: JSONValue, forKey key: Key) throws
    /// Writes a member that may not fit JSON (non-finite floats, integers beyond `Int64`).
    mutating func writePrimitive(_ value: some JSONPrimitiveEncodable, forKey key: Key) throws
}

// Inlined for the same reason as above.
extension JSONValueWritingKeyedContainer {
    @inline(__always) mutating func encodeNil(forKey key: Key) throws { try write(.null, forKey: key) }
    @inline(__always) mutating func encode(_ value: Bool, forKey key: Key) throws {
        try write(.bool(value), forKey: key)
    }
    @inline(__always) mutating func encode(_ value: String, forKey key: Key) throws {
        try write(.string(value), forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Double, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Float, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Int, forKey key: Key) throws {
        try write(.int(Int64(value)), forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Int8, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Int16, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Int32, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: Int64, forKey key: Key) throws {
        try write(.int(value), forKey: key)
    }
    @inline(__always) mutating func encode(_ value: UInt, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
    @inline(__always) mutating func encode(_ value: UInt64, forKey key: Key) throws {
        try writePrimitive(value, forKey: key)
    }
}
