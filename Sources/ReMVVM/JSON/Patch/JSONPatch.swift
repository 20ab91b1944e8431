/// An RFC 6902 JSON Patch: what the HTTP layer sends instead of a whole view when a client already holds an
/// earlier version of it.
public struct JSONPatch: Sendable, Hashable {
    /// The operations, applied in order; a patch either applies completely or not at all.
    public var operations: [JSONPatchOperation]

    /// A patch made of `operations`.
    public init(operations: [JSONPatchOperation] = []) {
        self.operations = operations
    }

    /// Whether the patch changes nothing, so a caller can skip sending it.
    public var isEmpty: Bool { operations.isEmpty }

    /// The patch document: an array of operation objects, ready to serialize.
    public var jsonValue: JSONValue {
        .array(operations.map(\.jsonValue))
    }

    /// Reads a patch document (an array of operation objects), such as one a client sends.
    ///
    /// - Throws: `JSONPatchError` of kind `.malformedOperation` naming the first bad operation.
    public init(parsing document: JSONValue) throws(JSONPatchError) {
        guard case .array(let elements) = document else {
            throw JSONPatchError(
                kind: .malformedOperation,
                operationIndex: 0,
                path: nil,
                reason: "a patch must be an array, found \(document.typeName)"
            )
        }
        var operations: [JSONPatchOperation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            operations.append(try JSONPatchOperation(parsing: element, index: index))
        }
        self.operations = operations
    }
}

extension JSONPatch: ExpressibleByArrayLiteral {
    /// Lets a patch be written as a list of operations in tests and fixtures.
    public init(arrayLiteral operations: JSONPatchOperation...) {
        self.init(operations: operations)
    }
}
