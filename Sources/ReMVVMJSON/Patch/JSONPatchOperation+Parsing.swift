extension JSONPatchOperation {
    /// Reads one member of a patch document (RFC 6902 §4), ignoring members the operation does not use.
    ///
    /// - Parameters:
    ///   - document: The operation object.
    ///   - index: Its position in the patch, for the error.
    /// - Throws: `JSONPatchError` of kind `.malformedOperation`.
    init(parsing document: JSONValue, index: Int) throws(JSONPatchError) {
        guard case .object(let members) = document else {
            throw Self.malformed(index, nil, "an operation must be an object, found \(document.typeName)")
        }
        guard case .string(let op)? = members["op"] else {
            throw Self.malformed(index, nil, "missing or non-string \"op\"")
        }
        guard case .string(let pathText)? = members["path"] else {
            throw Self.malformed(index, nil, "missing or non-string \"path\"")
        }
        guard let path = JSONPointer(pathText) else {
            throw Self.malformed(index, pathText, "\"path\" is not a valid JSON Pointer")
        }
        func value() throws(JSONPatchError) -> JSONValue {
            guard let value = members["value"] else {
                throw Self.malformed(index, pathText, "\"\(op)\" needs a \"value\"")
            }
            return value
        }
        func from() throws(JSONPatchError) -> JSONPointer {
            guard case .string(let fromText)? = members["from"] else {
                throw Self.malformed(index, pathText, "\"\(op)\" needs a string \"from\"")
            }
            guard let from = JSONPointer(fromText) else {
                throw Self.malformed(index, pathText, "\"from\" is not a valid JSON Pointer")
            }
            return from
        }
        switch op {
        case "add": self = .add(path: path, value: try value())
        case "remove": self = .remove(path: path)
        case "replace": self = .replace(path: path, value: try value())
        case "move": self = .move(from: try from(), path: path)
        case "copy": self = .copy(from: try from(), path: path)
        case "test": self = .test(path: path, value: try value())
        default: throw Self.malformed(index, pathText, "unknown op \"\(op)\"")
        }
    }

    private static func malformed(_ index: Int, _ path: String?, _ reason: String) -> JSONPatchError {
        JSONPatchError(kind: .malformedOperation, operationIndex: index, path: path, reason: reason)
    }
}
