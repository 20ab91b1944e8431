/// Whole container operations as single mutating calls, so each costs one access to the writer's state.
extension JSONBytesState {
    /// Writes `"key":value` into the object at `handle`.
    mutating func writeMember(_ key: String, _ value: JSONValue, in handle: JSONBytesHandle)
        throws(JSONBytesUnsupported)
    {
        try beginMember(key, in: handle)
        write(value)
    }

    /// Writes `"key":` and a primitive's JSON form into the object at `handle`.
    mutating func writeMember(_ key: String, primitive: some JSONPrimitiveEncodable, in handle: JSONBytesHandle)
        throws(JSONBytesUnsupported)
    {
        try beginMember(key, in: handle)
        try writePrimitive(primitive)
    }

    /// Writes `"key":` and opens a frame for its value.
    mutating func openMember(
        _ key: String,
        _ state: JSONBytesFrame.State,
        path: JSONBytesPathComponent,
        in handle: JSONBytesHandle
    ) throws(JSONBytesUnsupported) -> JSONBytesHandle {
        try beginMember(key, in: handle)
        return open(state, path: path)
    }

    /// Appends an element to the array at `handle`.
    mutating func writeElement(_ value: JSONValue, in handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        _ = try beginElement(in: handle)
        write(value)
    }

    /// Appends a primitive's JSON form to the array at `handle`.
    mutating func writeElement(primitive: some JSONPrimitiveEncodable, in handle: JSONBytesHandle)
        throws(JSONBytesUnsupported)
    {
        _ = try beginElement(in: handle)
        try writePrimitive(primitive)
    }

    /// Begins an element of the array at `handle` and opens a frame for it.
    mutating func openElement(_ state: JSONBytesFrame.State, in handle: JSONBytesHandle)
        throws(JSONBytesUnsupported) -> JSONBytesHandle
    {
        let index = try beginElement(in: handle)
        return open(state, path: .index(index))
    }

    /// Writes the single value of the encoder slot at `handle`.
    mutating func writeSingleValue(_ value: JSONValue, in handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        try beginSingleValue(in: handle)
        write(value)
    }

    /// Writes a primitive as the single value of the encoder slot at `handle`.
    mutating func writeSingleValue(primitive: some JSONPrimitiveEncodable, in handle: JSONBytesHandle)
        throws(JSONBytesUnsupported)
    {
        try beginSingleValue(in: handle)
        try writePrimitive(primitive)
    }

    /// Claims the encoder slot at `handle` and opens a frame for its value's own encoder, which sits at the
    /// same coding path.
    mutating func openSingleValue(in handle: JSONBytesHandle) throws(JSONBytesUnsupported) -> JSONBytesHandle {
        try beginSingleValue(in: handle)
        return open(.empty, path: .none)
    }
}
