import ReMVVMJSON

/// Maps a payload's `DecodingError` to the field it names, relative to the payload.
extension ActionDecodingError {
    /// Maps a payload decoding failure to the field it names, relative to the payload.
    static func payload(_ error: DecodingError, type: String, index: Int?) -> ActionDecodingError {
        func field(_ path: [any CodingKey], extra: (any CodingKey)? = nil) -> String {
            dottedPath(path + (extra.map { [$0] } ?? []))
        }
        let reason: ActionDecodingError.Reason
        switch error {
        case .keyNotFound(let key, let context):
            reason = .invalidPayload(type: type, field: field(context.codingPath, extra: key), problem: "is missing")
        case .typeMismatch(let expected, let context):
            reason = .invalidPayload(
                type: type, field: field(context.codingPath), problem: "expected \(describe(expected))")
        case .valueNotFound(let expected, let context):
            reason = .invalidPayload(
                type: type, field: field(context.codingPath), problem: "expected \(describe(expected)), found null")
        case .dataCorrupted(let context):
            reason = .invalidPayload(type: type, field: field(context.codingPath), problem: context.debugDescription)
        @unknown default:
            reason = .invalidPayload(type: type, field: "", problem: "\(error)")
        }
        return ActionDecodingError(reason, index: index)
    }

    static func dottedPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default: "\(type)"
        }
    }
}

extension ActionDecodingError {
    /// This error, with a ``hint`` when a payload field reported missing was sent beside `type` in the envelope
    /// (`{"type": "todo/add", "title": "x"}`) instead of inside `payload`.
    ///
    /// Reads `body` again, which only a failed request pays for.
    func pointingAtPayload(in body: [UInt8]) -> ActionDecodingError {
        guard case .invalidPayload(let type, let field, "is missing") = reason, !field.isEmpty,
            let document = try? JSONValue(parsing: body, maxDepth: ActionRegistry.maxDepth)
        else { return self }
        let envelope: JSONValue?
        switch (document, index) {
        case (.array(let items), let index?) where items.indices.contains(index): envelope = items[index]
        case (_, nil): envelope = document
        default: envelope = nil
        }
        guard case .object(let members)? = envelope, members[field] != nil else { return self }
        var error = self
        error.hint =
            "'\(field)' was sent beside \"type\", but fields go inside \"payload\": "
            + "{\"type\": \"\(type)\", \"payload\": {\"\(field)\": ...}}"
        return error
    }
}
