/// Everything one ``JSONBytesEncoder`` run writes and tracks: the output bytes and the stack of frames still open.
///
/// A struct held in one property of ``JSONBytesWriter``, so that each container operation is one mutating call:
/// every access to a class's stored property pays a dynamic exclusivity check, and with one property per piece
/// of state those checks cost as much as the encoding. Anything the forward pass cannot reproduce exactly
/// throws ``JSONBytesUnsupported`` and sets `failed`, so the caller falls back to the tree encoder.
struct JSONBytesState {
    /// The output so far.
    var bytes: [UInt8] = []
    /// The open frames, outermost first.
    var frames: [JSONBytesFrame] = []
    /// The members of every open object, outermost object's first; each object's members are a suffix
    /// starting at its `firstMember`.
    var members: [JSONBytesMember] = []
    /// Reused when an object's members are put into key order.
    var scratch: [UInt8] = []
    /// The `id` the next frame gets.
    private var nextID = 0
    /// Whether the fast path has given up; once set, every further operation fails too.
    private(set) var failed = false

    init() {
        // Most view models fit; one allocation instead of several regrowths, once per cached writer.
        bytes.reserveCapacity(256)
    }

    /// The bytes the buffers hold on to, for ``JSONBytesWriterCache`` to decide whether keeping them is worth it.
    /// (The output and the reordering scratch; the frames and members of even a deep view are small.)
    var capacity: Int { bytes.capacity + scratch.capacity }

    /// Forgets everything written, keeping the buffers' capacity for the next encoding.
    /// (Only a failed encoding leaves frames or members behind.)
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        if !frames.isEmpty { frames.removeAll(keepingCapacity: true) }
        if !members.isEmpty { members.removeAll(keepingCapacity: true) }
        nextID = 0
        failed = false
    }

    /// Gives up on the fast path.
    mutating func fail() -> JSONBytesUnsupported {
        failed = true
        return JSONBytesUnsupported()
    }

    /// Whether `handle`'s frame is still open.
    func isLive(_ handle: JSONBytesHandle) -> Bool {
        !failed && handle.index < frames.count && frames[handle.index].id == handle.id
    }

    /// Opens a frame above the current innermost one.
    mutating func push(_ state: JSONBytesFrame.State, path: JSONBytesPathComponent) -> JSONBytesHandle {
        let handle = JSONBytesHandle(index: frames.count, id: nextID)
        nextID += 1
        frames.append(JSONBytesFrame(id: handle.id, path: path, state: state))
        return handle
    }

    /// Makes `handle`'s frame the innermost one, closing everything opened above it (nested containers and
    /// super encoders are done once their parent writes again), or fails if the frame was already closed.
    mutating func activate(_ handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        guard isLive(handle) else { throw fail() }
        while frames.count > handle.index + 1 {
            try closeInnermost()
        }
    }

    /// Closes `handle`'s frame and everything above it, once the value it stands for has been encoded.
    mutating func close(_ handle: JSONBytesHandle) throws(JSONBytesUnsupported) {
        try activate(handle)
        try closeInnermost()
    }

    /// Finishes the innermost frame's bytes and removes it.
    mutating func closeInnermost() throws(JSONBytesUnsupported) {
        guard let frame = frames.popLast() else { throw fail() }
        switch frame.state {
        case .empty:
            // A nested value or super encoder that wrote nothing stands for `{}`, as in the tree encoder.
            bytes.append(UInt8(ascii: "{"))
            bytes.append(UInt8(ascii: "}"))
        case .single:
            break
        case .object(let firstMember, let ordered):
            try finishMembers(from: firstMember, ordered: ordered)
            bytes.append(UInt8(ascii: "}"))
        case .array:
            bytes.append(UInt8(ascii: "]"))
        }
    }

    /// Closes the root frame and returns a copy of the bytes, sized to fit, so the buffer stays with the
    /// writer for its next encoding; a root that wrote nothing is left to the tree encoder, which throws the
    /// right error.
    mutating func finish(root: JSONBytesHandle) throws(JSONBytesUnsupported) -> [UInt8] {
        try activate(root)
        if case .empty = frames[root.index].state { throw fail() }
        try closeInnermost()
        guard frames.isEmpty else { throw fail() }
        // Through a buffer pointer: `Array(bytes)` would share the buffer, not copy it.
        return bytes.withUnsafeBufferPointer { Array($0) }
    }

    /// The coding path of `handle`'s frame, as `codingPath` wants it; a closed frame fails the fast path,
    /// since code that reads it might decide its output on it.
    mutating func codingPath(of handle: JSONBytesHandle) -> [any CodingKey] {
        guard isLive(handle) else {
            _ = fail()
            return []
        }
        return frames[...handle.index].compactMap(\.path.codingKey)
    }
}

/// The signal that the fast path cannot reproduce the tree encoder's output; never seen outside
/// ``JSONBytesEncoder``.
struct JSONBytesUnsupported: Error {}
