extension JSONBytesState {
    /// Writes the separator for a new element of the array at `handle` and returns the element's index.
    mutating func beginElement(in handle: JSONBytesHandle) throws(JSONBytesUnsupported) -> Int {
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
    mutating func beginSingleValue(in handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        try activate(handle)
        guard case .empty = frames[handle.index].state else { throw fail() }
        frames[handle.index].state = .single
    }

    /// Turns the encoder slot at `handle` into an object, or finds the object an earlier request opened there
    /// (the tree encoder merges both into one object too); returns the handle for the container, or an invalid
    /// one when the slot already holds something else (the tree keeps the last kind; not worth reproducing).
    mutating func openObject(in handle: JSONBytesHandle) -> JSONBytesHandle {
        do throws(JSONBytesUnsupported) {
            try activate(handle)
            switch frames[handle.index].state {
            case .empty:
                bytes.append(UInt8(ascii: "{"))
                frames[handle.index].state = .object(firstMember: members.count, ordered: true)
            case .object:
                break
            case .single, .array:
                throw fail()
            }
            return handle
        } catch {
            return .invalid
        }
    }

    /// Turns the encoder slot at `handle` into an array, or finds the array an earlier request opened there.
    mutating func openArray(in handle: JSONBytesHandle) -> JSONBytesHandle {
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

    /// Opens a frame for the value just begun: a nested object or array (writing its bracket), or the slot of
    /// a nested encoder (`.empty`).
    mutating func open(_ state: JSONBytesFrame.State, path: JSONBytesPathComponent) -> JSONBytesHandle {
        switch state {
        case .object:
            bytes.append(UInt8(ascii: "{"))
            return push(.object(firstMember: members.count, ordered: true), path: path)
        case .array:
            bytes.append(UInt8(ascii: "["))
            return push(.array(count: 0), path: path)
        case .empty, .single:
            return push(.empty, path: path)
        }
    }

    /// Writes a value that is already a `JSONValue` primitive, through the same serializer as the tree path.
    mutating func write(_ value: JSONValue) {
        value.serialize(into: &bytes)
    }

    /// Writes a primitive's JSON form; non-finite numbers fail, leaving the error to the tree encoder.
    mutating func writePrimitive(_ value: some JSONPrimitiveEncodable) throws(JSONBytesUnsupported) {
        guard let json = value.primitiveJSONValue else { throw fail() }
        json.serialize(into: &bytes)
    }
}
