/// The state every encoder and container of one ``JSONBytesEncoder`` run shares.
///
/// A class because `Encoder` hands out many small containers that must all write into one buffer; it is the
/// only object allocated per encoding besides the buffers themselves and the boxes `KeyedEncodingContainer`
/// makes. The state itself is one struct (see ``JSONBytesState``) so that each operation is one access.
/// Writers are reused through ``JSONBytesWriterCache``.
// Safety: one encoding uses a writer at a time, on one thread. A writer only reaches another thread through
// `JSONBytesWriterCache`, whose atomic exchange hands it over whole, and only after `recycle` found no
// encoder or container of the finished encoding still holding it.
final class JSONBytesWriter: @unchecked Sendable {
    /// The output and the open frames, one struct so that each container operation is one access.
    var state = JSONBytesState()

    /// Writes `"key":value` into the object at `handle`, `value` encoded as `JSONValueEncoder.encode(_:at:)`
    /// builds it. The path is an autoclosure so that primitives never build it.
    func encodeMember<Value: Encodable>(
        _ value: Value,
        forKey key: String,
        path: @autoclosure () -> JSONBytesPathComponent,
        in handle: JSONBytesHandle
    ) throws {
        if let primitive = Self.primitive(value) {
            try state.writeMember(key, primitive: primitive, in: handle)
        } else {
            try encode(value, in: state.openMember(key, .empty, path: path(), in: handle))
        }
    }

    /// Appends `value` to the array at `handle`.
    func encodeElement<Value: Encodable>(_ value: Value, in handle: JSONBytesHandle) throws {
        if let primitive = Self.primitive(value) {
            try state.writeElement(primitive: primitive, in: handle)
        } else {
            try encode(value, in: state.openElement(.empty, in: handle))
        }
    }

    /// Writes `value` as the single value of the encoder slot at `handle`.
    func encodeSingleValue<Value: Encodable>(_ value: Value, in handle: JSONBytesHandle) throws {
        if let primitive = Self.primitive(value) {
            try state.writeSingleValue(primitive: primitive, in: handle)
        } else {
            try encode(value, in: state.openSingleValue(in: handle))
        }
    }

    /// The value as a primitive, decided exactly as `JSONValueEncoder.encode(_:at:)` decides it.
    private static func primitive<Value: Encodable>(_ value: Value) -> (any JSONPrimitiveEncodable)? {
        guard JSONValueEncoder.isPrimitive(type(of: value)) else { return nil }
        return value as? any JSONPrimitiveEncodable
    }

    /// Runs the value's own `encode(to:)` into the slot just opened; a value that writes nothing leaves `{}`.
    private func encode(_ value: some Encodable, in slot: JSONBytesHandle) throws {
        // No access to `state` is open while the value's own code runs, so its containers can write.
        try value.encode(to: JSONBytesEncoder(writer: self, handle: slot))
        // The value's own frames (and a slot nobody wrote to) end with it.
        try state.close(slot)
    }
}
