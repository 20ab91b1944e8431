/// One RFC 6902 operation: the unit the HTTP layer sends to bring a client's copy of a view up to date.
public enum JSONPatchOperation: Sendable, Hashable {
    /// Adds `value` at `path`: sets an object member, or inserts into an array (`-` appends).
    case add(path: JSONPointer, value: JSONValue)
    /// Removes the value at `path`, which must exist.
    case remove(path: JSONPointer)
    /// Replaces the value at `path`, which must exist.
    case replace(path: JSONPointer, value: JSONValue)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: JSONPointer, path: JSONPointer)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: JSONPointer, path: JSONPointer)
    /// Fails the whole patch unless the value at `path` equals `value` (numbers compared by value).
    case test(path: JSONPointer, value: JSONValue)

    /// The `op` member's value (`"add"`, `"remove"`, ...).
    public var name: String {
        switch self {
        case .add: "add"
        case .remove: "remove"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The location the operation changes or tests.
    public var path: JSONPointer {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .test(let path, _): path
        case .move(_, let path), .copy(_, let path): path
        }
    }

    /// The operation as a patch document member: `{"op": ..., "path": ..., "value" or "from": ...}`.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["op": .string(name), "path": .string(path.description)]
        switch self {
        case .add(_, let value), .replace(_, let value), .test(_, let value):
            members["value"] = value
        case .move(let from, _), .copy(let from, _):
            members["from"] = .string(from.description)
        case .remove:
            break
        }
        return .object(members)
    }

    /// Appends the operation object as `jsonValue.serialized()` writes it: members in key order (`from`,
    /// `op`, `path`, `value`).
    func serialize(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        switch self {
        case .move(let from, _), .copy(let from, _):
            buffer.append(utf8: #""from":"#)
            JSONValue.appendString(from.description, to: &buffer)
            buffer.append(UInt8(ascii: ","))
        case .add, .remove, .replace, .test:
            break
        }
        buffer.append(utf8: #""op":"#)
        JSONValue.appendString(name, to: &buffer)
        buffer.append(utf8: #","path":"#)
        JSONValue.appendString(path.description, to: &buffer)
        switch self {
        case .add(_, let value), .replace(_, let value), .test(_, let value):
            buffer.append(utf8: #","value":"#)
            value.serialize(into: &buffer)
        case .remove, .move, .copy:
            break
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
