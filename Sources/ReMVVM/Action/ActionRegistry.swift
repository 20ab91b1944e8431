import Foundation

/// The wire names a store understands, and how to decode each into its typed action.
///
/// Built automatically from the reducers and typed middleware of a ``StoreDefinition``;
/// ``register(_:)`` adds action types that only untyped middleware reacts to.
public struct ActionRegistry: Sendable {
    private var decoders: [String: ActionDecoder] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Makes `type` decodable under its ``StoreAction/wireName``.
    public mutating func register<Action: StoreAction>(_ type: Action.Type) {
        decoders[Action.wireName] = ActionDecoder(Action.self)
    }

    /// Adds every type that `other` knows.
    public mutating func merge(_ other: ActionRegistry) {
        decoders.merge(other.decoders) { current, _ in current }
    }

    /// The wire names known to this registry, sorted.
    public var wireNames: [String] { decoders.keys.sorted() }

    /// Whether an action is registered under `wireName`.
    public func contains(_ wireName: String) -> Bool { decoders[wireName] != nil }

    /// Decodes one `{"type", "payload"}` object or an array of them (a batch).
    ///
    /// Either every action decodes or the call throws, so a batch is never half-applied.
    public func decodeActions(from json: Data) throws(ActionDecodingError) -> [any StoreAction] {
        let decoder = JSONDecoder()
        if let key = ActionEnvelope.registryKey { decoder.userInfo[key] = self }
        do {
            if json.first(where: { !Self.isWhitespace($0) }) == UInt8(ascii: "[") {
                let actions = try decoder.decode([ActionEnvelope].self, from: json).map(\.action)
                guard !actions.isEmpty else { throw ActionDecodingError(.emptyBatch) }
                return actions
            }
            return [try decoder.decode(ActionEnvelope.self, from: json).action]
        } catch let error as ActionDecodingError {
            throw error
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            let detail = context.underlyingError.map { "\($0)" } ?? context.debugDescription
            throw ActionDecodingError(.malformedJSON(detail))
        } catch let error as DecodingError {
            throw ActionDecodingError(.malformedEnvelope(Self.describeEnvelopeError(error)))
        } catch {
            throw ActionDecodingError(.malformedEnvelope("\(error)"))
        }
    }

    /// Decodes one action from its wire name and its payload's JSON (nil for no payload).
    public func decodeAction(type wireName: String, payload: Data?) throws(ActionDecodingError) -> any StoreAction {
        guard let entry = decoders[wireName] else { throw ActionDecodingError(.unknownType(wireName)) }
        do {
            return try entry.decode(JSONDecoder(), payload ?? Data("{}".utf8))
        } catch let error as DecodingError {
            throw ActionEnvelope.payloadError(error, type: wireName, prefix: 0, index: nil)
        } catch {
            throw ActionDecodingError(.invalidPayload(type: wireName, field: "", problem: "\(error)"))
        }
    }

    /// Encodes an action as its wire envelope `{"type": ..., "payload": ...}`.
    public static func encode(_ action: any StoreAction) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(EncodedEnvelope(action: action))
    }

    func decoder(for wireName: String) -> ActionDecoder? { decoders[wireName] }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func describeEnvelopeError(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)'\(ActionEnvelope.location(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let path = ActionEnvelope.dottedPath(context.codingPath)
            return path.isEmpty
                ? "an action must be an object {\"type\": String, \"payload\": {...}} or an array of them"
                : "'\(path)' has the wrong type: \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "malformed JSON: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Type-erased decoding of one registered action type.
struct ActionDecoder: Sendable {
    let decodeFrom: @Sendable (any Decoder) throws -> any StoreAction
    let decode: @Sendable (JSONDecoder, Data) throws -> any StoreAction

    init<Action: StoreAction>(_ type: Action.Type) {
        decodeFrom = { try Action(from: $0) }
        decode = { try $0.decode(Action.self, from: $1) }
    }
}

/// Writes an action as `{"type", "payload"}`.
private struct EncodedEnvelope: Encodable {
    let action: any StoreAction

    enum CodingKeys: String, CodingKey { case type, payload }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action.wireName, forKey: .type)
        try container.encode(action, forKey: .payload)
    }
}
