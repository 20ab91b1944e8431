extension JSONValue {
    /// The value `pointer` refers to, or `nil` when there is none, for reading into documents by path.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let members):
                guard let member = members[token] else { return nil }
                current = member
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(token), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Runs `body` on the container that holds the target of `tokens` (which must not be empty), passing the
    /// last token; every container on the way must exist.
    ///
    /// Containers are detached from `self` while `body` runs so their storage stays uniquely referenced and is
    /// changed in place rather than copied at every level. On error the document is left unspecified; callers
    /// work on a copy.
    mutating func modifyContainer(
        holding tokens: ArraySlice<String>,
        _ body: (inout JSONValue, String) throws(JSONPatchError) -> Void
    ) throws(JSONPatchError) {
        guard let token = tokens.first else { return }
        let rest = tokens.dropFirst()
        guard !rest.isEmpty else {
            try body(&self, token)
            return
        }
        switch self {
        case .object(var members):
            guard let index = members.index(forKey: token) else {
                throw .pathNotFound("no member \"\(token)\"")
            }
            self = .null
            defer { self = .object(members) }
            try members.values[index].modifyContainer(holding: rest, body)
        case .array(var elements):
            guard let index = JSONPointer.arrayIndex(token), elements.indices.contains(index) else {
                throw .pathNotFound("no element \"\(token)\" in an array of \(elements.count)")
            }
            self = .null
            defer { self = .array(elements) }
            try elements[index].modifyContainer(holding: rest, body)
        default:
            throw .pathNotFound("cannot look up \"\(token)\" in a \(typeName)")
        }
    }
}

extension JSONPatchError {
    /// A `.pathNotFound` error whose operation and path the patch fills in.
    static func pathNotFound(_ reason: String) -> JSONPatchError {
        JSONPatchError(kind: .pathNotFound, operationIndex: 0, path: nil, reason: reason)
    }
}
