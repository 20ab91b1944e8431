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

    /// The patch document's bytes, exactly `jsonValue.serialized()` (members in key order), written straight
    /// into one buffer: every poll answer that carries a patch needs them, and the tree was built only to be
    /// written.
    public func serialized() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(48 * operations.count + 2)
        buffer.append(UInt8(ascii: "["))
        for (index, operation) in operations.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            operation.serialize(into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
        return buffer
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
