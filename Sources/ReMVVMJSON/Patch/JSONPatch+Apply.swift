extension JSONPatch {
    /// Applies the operations in order with RFC 6902 semantics, so the same patch gives the same result here
    /// and in any conforming client library.
    ///
    /// - Returns: The patched document; `value` itself is untouched, and nothing is applied when any
    ///   operation fails.
    /// - Throws: `JSONPatchError` naming the index of the failing operation and the pointer that failed
    ///   (`from` for a missing source of `move` or `copy`, otherwise `path`).
    public func apply(to value: JSONValue) throws(JSONPatchError) -> JSONValue {
        var document = value
        for (index, operation) in operations.enumerated() {
            do {
                try Self.apply(operation, to: &document)
            } catch var error {
                error.operationIndex = index
                if error.path == nil {
                    error.path = operation.path.description
                }
                throw error
            }
        }
        return document
    }

    private static func apply(_ operation: JSONPatchOperation, to document: inout JSONValue) throws(JSONPatchError) {
        switch operation {
        case .add(let path, let value):
            try add(value, at: path, in: &document)
        case .remove(let path):
            _ = try remove(at: path, in: &document)
        case .replace(let path, let value):
            try replace(at: path, with: value, in: &document)
        case .move(let from, let path):
            guard from != path else {
                _ = try source(from, in: document)
                return
            }
            guard !path.isProperDescendant(of: from) else {
                throw JSONPatchError(
                    kind: .invalidOperation,
                    operationIndex: 0,
                    path: nil,
                    reason: "cannot move \"\(from)\" into its own child"
                )
            }
            let value = try remove(at: from, in: &document, sourcePointer: true)
            try add(value, at: path, in: &document)
        case .copy(let from, let path):
            try add(try source(from, in: document), at: path, in: &document)
        case .test(let path, let expected):
            guard let actual = document.value(at: path) else {
                throw .pathNotFound("nothing to test")
            }
            guard actual.isEquivalent(to: expected) else {
                throw JSONPatchError(
                    kind: .testFailed,
                    operationIndex: 0,
                    path: nil,
                    reason: "expected \(expected.jsonString), found \(actual.jsonString)"
                )
            }
        }
    }

    /// The value at a `move` or `copy` source, with errors naming `from` rather than `path`.
    private static func source(_ from: JSONPointer, in document: JSONValue) throws(JSONPatchError) -> JSONValue {
        guard let value = document.value(at: from) else {
            var error = JSONPatchError.pathNotFound("nothing at \"from\"")
            error.path = from.description
            throw error
        }
        return value
    }

    private static func add(_ value: JSONValue, at path: JSONPointer, in document: inout JSONValue)
        throws(JSONPatchError)
    {
        guard !path.isRoot else {
            document = value
            return
        }
        try document.modifyContainer(holding: path.tokens[...]) { container, token throws(JSONPatchError) in
            switch container {
            case .object(var members):
                container = .null
                members[token] = value
                container = .object(members)
            case .array(var elements):
                let index = token == "-" ? elements.count : JSONPointer.arrayIndex(token)
                guard let index, index <= elements.count else {
                    throw .pathNotFound("cannot insert at \"\(token)\" in an array of \(elements.count)")
                }
                container = .null
                elements.insert(value, at: index)
                container = .array(elements)
            default:
                throw .pathNotFound("cannot add a member to a \(container.typeName)")
            }
        }
    }

    private static func remove(
        at path: JSONPointer,
        in document: inout JSONValue,
        sourcePointer: Bool = false
    ) throws(JSONPatchError) -> JSONValue {
        guard !path.isRoot else {
            throw JSONPatchError(
                kind: .invalidOperation,
                operationIndex: 0,
                path: nil,
                reason: "cannot remove the whole document"
            )
        }
        var removed = JSONValue.null
        do {
            try document.modifyContainer(holding: path.tokens[...]) { container, token throws(JSONPatchError) in
                switch container {
                case .object(var members):
                    container = .null
                    defer { container = .object(members) }
                    guard let value = members.removeValue(forKey: token) else {
                        throw .pathNotFound("no member \"\(token)\" to remove")
                    }
                    removed = value
                case .array(var elements):
                    guard let index = JSONPointer.arrayIndex(token), elements.indices.contains(index) else {
                        throw .pathNotFound("no element \"\(token)\" to remove in an array of \(elements.count)")
                    }
                    container = .null
                    removed = elements.remove(at: index)
                    container = .array(elements)
                default:
                    throw .pathNotFound("cannot remove from a \(container.typeName)")
                }
            }
        } catch var error where sourcePointer {
            error.path = path.description
            throw error
        }
        return removed
    }

    private static func replace(at path: JSONPointer, with value: JSONValue, in document: inout JSONValue)
        throws(JSONPatchError)
    {
        guard !path.isRoot else {
            document = value
            return
        }
        try document.modifyContainer(holding: path.tokens[...]) { container, token throws(JSONPatchError) in
            switch container {
            case .object(var members):
                guard let index = members.index(forKey: token) else {
                    throw .pathNotFound("no member \"\(token)\" to replace")
                }
                container = .null
                members.values[index] = value
                container = .object(members)
            case .array(var elements):
                guard let index = JSONPointer.arrayIndex(token), elements.indices.contains(index) else {
                    throw .pathNotFound("no element \"\(token)\" to replace in an array of \(elements.count)")
                }
                container = .null
                elements[index] = value
                container = .array(elements)
            default:
                throw .pathNotFound("cannot replace in a \(container.typeName)")
            }
        }
    }
}
