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
