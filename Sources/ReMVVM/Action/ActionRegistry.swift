import Foundation
import ReMVVMJSON

/// The wire names a store understands, and how to decode each into its typed action.
///
/// Built automatically from the reducers and typed middleware of a ``StoreDefinition``;
/// ``register(_:)`` adds action types that only untyped middleware reacts to.
public struct ActionRegistry: Sendable {
    /// The registered wire names and their decoders, in registration order.
    private var names: [String] = []
    private var decoders: [ActionDecoder] = []
    /// Where each name is in `names`.
    private var indexByName: [String: Int] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Makes `type` decodable under its ``StoreAction/wireName``.
    public mutating func register<Action: StoreAction>(_ type: Action.Type) {
        add(Action.wireName, ActionDecoder(Action.self), replacing: true)
    }

    /// Adds every type that `other` knows.
    public mutating func merge(_ other: ActionRegistry) {
        for (name, decoder) in zip(other.names, other.decoders) { add(name, decoder, replacing: false) }
    }

    /// The wire names known to this registry, sorted.
    public var wireNames: [String] { names.sorted() }

    /// Whether an action is registered under `wireName`.
    public func contains(_ wireName: String) -> Bool { index(of: wireName) != nil }

    /// Where `wireName` is registered.
    ///
    /// An app has a handful of action types: comparing the names of the same length costs less than hashing the
    /// one asked for, which every dispatch does.
    private func index(of wireName: String) -> Int? {
        guard names.count <= Self.namesCompared else { return indexByName[wireName] }
        let length = wireName.utf8.count
        return names.withUnsafeBufferPointer { names in
            for index in names.indices where names[index].utf8.count == length && names[index] == wireName {
                return index
            }
            return nil
        }
    }

    /// Where the wire name spelled by these UTF-8 bytes is registered.
    private func index(ofUTF8 wireName: UnsafeBufferPointer<UInt8>) -> Int? {
        guard names.count <= Self.namesCompared else { return indexByName[String(decoding: wireName, as: UTF8.self)] }
        return names.withUnsafeBufferPointer { names in
            for index in names.indices where names[index].utf8.count == wireName.count {
                let equal =
                    names[index].utf8.withContiguousStorageIfAvailable { name in
                        // Both empty when either has no address.
                        guard let first = name.baseAddress, let second = wireName.baseAddress else { return true }
                        return memcmp(first, second, name.count) == 0
                    } ?? names[index].utf8.elementsEqual(wireName)
                if equal { return index }
            }
            return nil
        }
    }

    /// Up to how many action types a wire name is found by comparing rather than hashing.
    private static var namesCompared: Int { 16 }

    private mutating func add(_ name: String, _ decoder: ActionDecoder, replacing: Bool) {
        if let index = indexByName[name] {
            if replacing { decoders[index] = decoder }
            return
        }
        indexByName[name] = names.count
        names.append(name)
        decoders.append(decoder)
    }

    /// Decodes one `{"type", "payload"}` object or an array of them (a batch).
    ///
    /// Either every action decodes or the call throws, so a batch is never half-applied. The
    /// body is parsed once into a ``JSONValue`` and each payload decoded straight from it.
    public func decodeActions(from json: some Collection<UInt8>) throws(ActionDecodingError) -> [any StoreAction] {
        let bytes = Array(json)
        var envelope = JSONParser(bytes: bytes, maxDepth: Self.maxDepth)
        // The common single action of a registered type, read without building the envelope object or a string
        // for its type; anything else goes the general way, which also names every error.
        if let (type, payload) = envelope.parseActionEnvelope(),
            let entry = bytes.withUnsafeBufferPointer({ index(ofUTF8: UnsafeBufferPointer(rebasing: $0[type])) })
        {
            return [try decodePayload(payload ?? .null, entry: entry, type: names[entry], index: nil)]
        }
        return try decodeDocument(bytes)
    }

    /// Decodes a body of any shape, parsed in full: what ``decodeActions(from:)`` does when the body is
    /// not a plain single envelope, and the reference its shortcut must agree with.
    func decodeDocument(_ bytes: [UInt8]) throws(ActionDecodingError) -> [any StoreAction] {
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
            actions.reserveCapacity(items.count)
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

    /// Decodes one action from its wire name and its payload's JSON (nil for no payload).
    public func decodeAction(type wireName: String, payload: Data?) throws(ActionDecodingError) -> any StoreAction {
        guard let payload else { return try decodePayload(.null, type: wireName, index: nil) }
        do {
            return try decodePayload(try JSONValue(parsing: payload), type: wireName, index: nil)
        } catch let error as ActionDecodingError {
            throw error
        } catch {
            throw ActionDecodingError(.invalidPayload(type: wireName, field: "", problem: "\(error)"))
        }
    }

    /// Encodes an action as its wire envelope `{"type": ..., "payload": ...}`.
    public static func encode(_ action: any StoreAction) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(ActionEnvelope(action))
    }

    /// How deeply a request body may nest (``JSONValue/init(parsing:maxDepth:)``'s default).
    private static let maxDepth = 512

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

    private func decodePayload(_ payload: JSONValue, type: String, index: Int?) throws(ActionDecodingError)
        -> any StoreAction
    {
        guard let entry = self.index(of: type) else { throw ActionDecodingError(.unknownType(type), index: index) }
        return try decodePayload(payload, entry: entry, type: type, index: index)
    }

    /// Decodes `payload` with the decoder registered at `entry`; `type` is the wire name as sent, for errors.
    private func decodePayload(_ payload: JSONValue, entry: Int, type: String, index: Int?)
        throws(ActionDecodingError) -> any StoreAction
    {
        do {
            return try decoders[entry].decode(payload == .null ? .object([:]) : payload)
        } catch let error as DecodingError {
            throw ActionDecodingError.payload(error, type: type, index: index)
        } catch {
            throw ActionDecodingError(.invalidPayload(type: type, field: "", problem: "\(error)"), index: index)
        }
    }

    func decoder(for wireName: String) -> ActionDecoder? { index(of: wireName).map { decoders[$0] } }
}

/// Type-erased decoding of one registered action type.
struct ActionDecoder: Sendable {
    let decode: @Sendable (JSONValue) throws -> any StoreAction

    init<Action: StoreAction>(_ type: Action.Type) {
        decode = { try $0.decode(Action.self) }
    }
}

/// An action in its wire form `{"type": wire name, "payload": action}`, for encoding (logs, clients).
public struct ActionEnvelope: Encodable, Sendable {
    /// The action.
    public let action: any StoreAction

    /// Wraps `action`.
    public init(_ action: any StoreAction) {
        self.action = action
    }

    private enum CodingKeys: String, CodingKey { case type, payload }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action.wireName, forKey: .type)
        try container.encode(action, forKey: .payload)
    }
}
