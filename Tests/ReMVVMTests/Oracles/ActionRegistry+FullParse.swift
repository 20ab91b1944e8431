import ReMVVMJSON

@_spi(ReMVVMServer) @testable import ReMVVM

extension ActionRegistry {
    /// The test oracle of `decodeActions(from:)`: the body parsed in full into a `JSONValue`, then each
    /// envelope object looked up by key. This was the production path before the one-pass envelope reader;
    /// the reader must accept, decode and reject exactly what it does, with the same errors.
    func decodeByParsingTheDocument(_ bytes: [UInt8]) throws(ActionDecodingError) -> [any StoreAction] {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: bytes, maxDepth: Self.maxDepth)
        } catch {
            throw ActionDecodingError(.malformedJSON(error.description))
        }
        switch document {
        case .array(let items):
            guard !items.isEmpty else { throw ActionDecodingError(.emptyBatch) }
            var actions: [any StoreAction] = []
            for (index, item) in items.enumerated() { actions.append(try decodeEnvelope(item, index: index)) }
            return actions
        case .object:
            return [try decodeEnvelope(document, index: nil)]
        default:
            throw ActionDecodingError(
                .malformedEnvelope(
                    "an action must be an object {\"type\": String, \"payload\": {...}} or an array of them"))
        }
    }

    private func decodeEnvelope(_ value: JSONValue, index: Int?) throws(ActionDecodingError) -> any StoreAction {
        guard case .object(let fields) = value else {
            throw ActionDecodingError(
                .malformedEnvelope("an action must be an object, not \(value.typeName)"), index: index)
        }
        guard case .string(let type)? = fields["type"] else {
            let problem = fields["type"] == nil ? "missing 'type'" : "'type' must be a string naming the action"
            throw ActionDecodingError(.malformedEnvelope(problem), index: index)
        }
        return try decodePayload(fields["payload"] ?? .null, type: type, index: index)
    }
}
