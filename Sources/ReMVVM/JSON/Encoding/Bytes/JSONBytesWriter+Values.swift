extension JSONBytesWriter {
    /// Writes the separator for a new element of the array at `handle` and returns the element's index.
    func beginElement(in handle: JSONBytesHandle) throws(JSONBytesUnsupported) -> Int {
        try activate(handle)
        guard case .array(let count) = frames[handle.index].state else { throw fail() }
        if count > 0 {
            bytes.append(UInt8(ascii: ","))
        }
        frames[handle.index].state = .array(count: count + 1)
        return count
    }

    /// Claims the encoder slot at `handle` for its single value; a second value (where the tree encoder lets
    /// the last one win) or a value after a container fails.
    func beginSingleValue(in handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        try activate(handle)
        guard case .empty = frames[handle.index].state else { throw fail() }
        frames[handle.index].state = .single
    }

    /// Turns the encoder slot at `handle` into an object, or finds the object an earlier request opened there
    /// (the tree encoder merges both into one object too); returns the handle for the container.
    func openObject(in handle: JSONBytesHandle) -> JSONBytesHandle {
        do throws(JSONBytesUnsupported) {
            try activate(handle)
            switch frames[handle.index].state {
            case .empty:
                bytes.append(UInt8(ascii: "{"))
                frames[handle.index].state = .object(firstMember: members.count, ordered: true, asciiKeys: true)
            case .object:
                break
            case .single, .array:
                // Switching container kinds: the tree encoder keeps the last; not worth reproducing.
                throw fail()
            }
            return handle
        } catch {
            return .invalid
        }
    }

    /// Turns the encoder slot at `handle` into an array, or finds the array an earlier request opened there.
    func openArray(in handle: JSONBytesHandle) -> JSONBytesHandle {
        do throws(JSONBytesUnsupported) {
            try activate(handle)
            switch frames[handle.index].state {
            case .empty:
                bytes.append(UInt8(ascii: "["))
                frames[handle.index].state = .array(count: 0)
            case .array:
                break
            case .single, .object:
                throw fail()
            }
            return handle
        } catch {
            return .invalid
        }
    }

    /// Opens a nested object as the value just begun (after `beginMember` or `beginElement`).
    func pushObject(path: JSONBytesPathComponent) -> JSONBytesHandle {
        bytes.append(UInt8(ascii: "{"))
        return push(.object(firstMember: members.count, ordered: true, asciiKeys: true), path: path)
    }

    /// Opens a nested array as the value just begun.
    func pushArray(path: JSONBytesPathComponent) -> JSONBytesHandle {
        bytes.append(UInt8(ascii: "["))
        return push(.array(count: 0), path: path)
    }

    /// Writes a value that is already a `JSONValue` primitive, through the same serializer as the tree path.
    func write(_ value: JSONValue) {
        value.serialize(into: &bytes)
    }

    /// Writes a primitive's JSON form; non-finite numbers fail, leaving the error to the tree encoder.
    func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        guard let json = value.primitiveJSONValue else { throw fail() }
        json.serialize(into: &bytes)
    }

    /// Writes any value just begun, exactly as `JSONValueEncoder.encode(_:at:)` builds it: primitives
    /// directly, everything else through `encode(to:)` with an encoder of its own, `{}` if it writes nothing.
    ///
    /// The path is an autoclosure so that primitives never build it.
    func encodeValue<Value: Encodable>(
        _ value: Value,
        path: @autoclosure () -> JSONBytesPathComponent
    ) throws {
        if JSONValueEncoder.isPrimitive(type(of: value)), let primitive = value as? any JSONPrimitiveEncodable {
            try writePrimitive(primitive)
            return
        }
        let slot = push(.empty, path: path())
        try value.encode(to: JSONBytesEncoder(writer: self, handle: slot))
        // The value's own frames (and a slot nobody wrote to) end with it.
        try activate(slot)
        try closeInnermost()
    }
}
