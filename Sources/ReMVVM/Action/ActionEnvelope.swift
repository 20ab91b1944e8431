import Foundation

/// Reads the wire form `{"type": "counter/set", "payload": {"value": 3}}` into a typed action.
struct ActionEnvelope: Decodable {
    /// Where the decoder finds the registry (the initializer is failable only for formality's sake).
    static let registryKey = CodingUserInfoKey(rawValue: "remvvm.actionRegistry")

    let action: any StoreAction

    private enum CodingKeys: String, CodingKey { case type, payload }

    init(from decoder: any Decoder) throws {
        let index = decoder.codingPath.last?.intValue
        guard let key = Self.registryKey, let registry = decoder.userInfo[key] as? ActionRegistry else {
            throw ActionDecodingError(.malformedEnvelope("no action registry configured"), index: index)
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type: String
        do {
            type = try container.decode(String.self, forKey: .type)
        } catch {
            throw ActionDecodingError(.malformedEnvelope("'type' must be a string naming the action"), index: index)
        }
        guard let entry = registry.decoder(for: type) else {
            throw ActionDecodingError(.unknownType(type), index: index)
        }
        do {
            if container.contains(.payload), try !container.decodeNil(forKey: .payload) {
                action = try entry.decodeFrom(container.superDecoder(forKey: .payload))
            } else {
                action = try entry.decode(JSONDecoder(), Data("{}".utf8))
            }
        } catch let error as DecodingError {
            throw Self.payloadError(error, type: type, prefix: decoder.codingPath.count + 1, index: index)
        }
    }

    /// Maps a payload decoding failure to the field it names, relative to the payload.
    static func payloadError(_ error: DecodingError, type: String, prefix: Int, index: Int?) -> ActionDecodingError {
        func field(_ path: [any CodingKey], extra: (any CodingKey)? = nil) -> String {
            dottedPath(Array(path.dropFirst(prefix)) + (extra.map { [$0] } ?? []))
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

    static func location(_ path: [any CodingKey]) -> String {
        let dotted = dottedPath(path)
        return dotted.isEmpty ? "" : " in '\(dotted)'"
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
