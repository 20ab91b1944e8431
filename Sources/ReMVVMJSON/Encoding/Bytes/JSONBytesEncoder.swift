/// An `Encoder` that writes the compact serialization straight into bytes, the same bytes
/// `JSONValue(encoding:).serialized()` gives but without building the tree, because dispatch answers only need
/// the bytes.
///
/// A struct of a writer reference and a frame handle, small enough to fit an existential's inline buffer, so
/// handing it to `encode(to:)` allocates nothing. It gives up (``encode(_:)`` returns `nil`) wherever the tree
/// encoder's semantics need more than one forward pass; see ``encode(_:)``.
struct JSONBytesEncoder: Encoder {
    /// The shared output and frame stack.
    let writer: JSONBytesWriter
    /// The slot this encoder's value fills.
    let handle: JSONBytesHandle

    var codingPath: [any CodingKey] { writer.state.codingPath(of: handle) }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(
            JSONBytesKeyedContainer<Key>(writer: writer, handle: writer.state.openObject(in: handle)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        JSONBytesUnkeyedContainer(writer: writer, handle: writer.state.openArray(in: handle))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONBytesSingleValueContainer(writer: writer, handle: handle)
    }
}

extension JSONBytesEncoder {
    /// The compact serialization of `value`, byte for byte what `JSONValue(encoding: value).serialized()`
    /// gives, or `nil` when the fast path gives up and the caller must use the tree.
    ///
    /// It gives up on: a key written twice in one object (also keys that are only canonically equal); a nested
    /// container, super encoder or container written after its parent wrote again; an encoder asked for a second
    /// single value or for a different kind of container; a top-level value that encodes nothing; a non-finite
    /// number; any error the value throws. The tree encoder then produces the right bytes or the right error.
    static func encode<Value: Encodable>(_ value: Value) -> [UInt8]? {
        if JSONValueEncoder.isPrimitive(type(of: value)), let primitive = value as? any JSONPrimitiveEncodable {
            return primitive.primitiveJSONValue?.serialized()
        }
        let writer = JSONBytesWriterCache.take()
        let bytes = encode(value, with: writer)
        // Consumed, not just passed: the cache keeps the writer only when it holds the last reference.
        JSONBytesWriterCache.recycle(consume writer)
        return bytes
    }

    /// One encoding with an empty writer.
    private static func encode<Value: Encodable>(_ value: Value, with writer: JSONBytesWriter) -> [UInt8]? {
        let root = writer.state.push(.empty, path: .none)
        do {
            try value.encode(to: JSONBytesEncoder(writer: writer, handle: root))
            guard !writer.state.failed else { return nil }
            return try writer.state.finish(root: root)
        } catch {
            return nil
        }
    }
}
