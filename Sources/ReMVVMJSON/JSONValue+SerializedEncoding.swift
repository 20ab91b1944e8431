extension JSONValue {
    /// The compact serialization of `value`, byte for byte what `JSONValue(encoding: value).serialized()` gives,
    /// written straight into bytes when possible because building the tree first costs more than the answer.
    ///
    /// Values whose encoding needs the tree encoder's forgiving semantics (a key written twice, a container
    /// written after its parent moved on, a non-finite number, a top-level value that encodes nothing) go
    /// through `JSONValue(encoding:)` instead, so the bytes, and the errors, are always the same.
    ///
    /// - Throws: whatever `JSONValue(encoding:)` throws for `value`.
    public static func serializedEncoding(of value: some Encodable) throws -> [UInt8] {
        if let bytes = JSONBytesEncoder.encode(value) {
            return bytes
        }
        return try JSONValue(encoding: value).serialized()
    }

    /// The compact serialization of `value` when the byte encoder can write it in one forward pass, nil when
    /// the caller must build the tree: for a caller that keeps the tree for other uses (a view snapshot) and
    /// would rather build it once than have ``serializedEncoding(of:)`` build it and throw it away.
    public static func directSerialization(of value: some Encodable) -> [UInt8]? {
        JSONBytesEncoder.encode(value)
    }
}
