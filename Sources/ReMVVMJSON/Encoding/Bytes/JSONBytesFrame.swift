/// One value still being written by ``JSONBytesWriter``: an encoder's slot, an object or an array.
///
/// Frames form a stack that follows the nesting of the output; a container may only write while its frame is
/// live, so a single forward pass is enough. The `id` tells a live frame from a later one at the same depth.
struct JSONBytesFrame {
    /// What the frame has written so far.
    enum State {
        /// An encoder's value that has not asked for a container or written anything yet.
        case empty
        /// An encoder's single value, already written.
        case single
        /// An open object whose members start at `firstMember` in the writer's member list; `ordered` while
        /// every key came after the previous one in UTF-8 byte order.
        case object(firstMember: Int, ordered: Bool)
        /// An open array with `count` elements begun.
        case array(count: Int)

        /// An object about to be opened; ``JSONBytesState/open(_:path:)`` fills in where its members start.
        static var newObject: State { .object(firstMember: 0, ordered: true) }
        /// An array about to be opened.
        static var newArray: State { .array(count: 0) }
    }

    /// Tells this frame from any other that was ever at the same depth.
    let id: Int
    /// The key this frame adds to the coding path.
    let path: JSONBytesPathComponent
    /// What the frame has written so far.
    var state: State
}

/// A frame's place in the coding path, kept as cheap as possible because only `codingPath` readers need it.
enum JSONBytesPathComponent {
    /// The frame is at the same path as its parent (the root, a single value's content).
    case none
    /// A member's key.
    case key(any CodingKey)
    /// An array element's index.
    case index(Int)
    /// The `"super"` key `superEncoder()` uses.
    case superKey

    /// The coding key, if the frame adds one.
    var codingKey: (any CodingKey)? {
        switch self {
        case .none: nil
        case .key(let key): key
        case .index(let index): JSONCodingKey(intValue: index)
        case .superKey: JSONCodingKey.super
        }
    }
}

/// A reference to one frame that stays valid only while that frame is live.
struct JSONBytesHandle {
    /// The frame's depth in the stack.
    let index: Int
    /// The frame's `id`.
    let id: Int

    /// A handle no frame ever matches, returned where a non-throwing API cannot report that the fast path
    /// gave up.
    static let invalid = JSONBytesHandle(index: 0, id: -1)
}
