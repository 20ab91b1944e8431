public import Foundation
import ReMVVMJSON

/// The wire names a store understands, and how to decode each into its typed action.
///
/// Built automatically from the reducers and typed middleware of a ``StoreDefinition``;
/// ``register(_:)`` adds action types that only untyped middleware reacts to. Which of them a client may send
/// over HTTP is the definition's ``StoreDefinition/clientActions``: the registry a definition builds marks
/// those, and the server decodes nothing else from a client.
public struct ActionRegistry: Sendable {
    /// The registered wire names and their decoders, in registration order.
    private var names: [String] = []
    /// The same names' UTF-8 bytes one after the other, and where each one's are: compared with a body's bytes
    /// in place, and kept flat so that reading one costs no reference counting.
    private var nameBytes: [UInt8] = []
    private var nameRanges: [Range<Int>] = []
    private var decoders: [ActionDecoder] = []
    /// Whether clients may send the action at the same place in `names`.
    private var sendable: [Bool] = []
    /// Where each name is in `names`.
    private var indexByName: [String: Int] = [:]

    /// Creates an empty registry.
    public init() {}

    /// Makes `type` decodable under its ``StoreAction/wireName``.
    public mutating func register<Action: StoreAction>(_ type: Action.Type) {
        add(Action.wireName, ActionDecoder(Action.self), replacing: true, sendable: false)
    }

    /// Adds every type that `other` knows.
    public mutating func merge(_ other: ActionRegistry) {
        merge(other, sendableByClients: false)
    }

    /// Adds every type that `other` knows, marked as sendable by clients when `sendableByClients` is true (a
    /// type already marked stays marked).
    mutating func merge(_ other: ActionRegistry, sendableByClients: Bool) {
        for index in other.names.indices {
            add(
                other.names[index], other.decoders[index], replacing: false,
                sendable: sendableByClients || other.sendable[index])
        }
    }

    /// The wire names known to this registry, sorted.
    public var wireNames: [String] { names.sorted() }

    /// The wire names clients may send, sorted: those of ``StoreDefinition/clientActions`` in a definition's
    /// ``StoreDefinition/actions``.
    @_spi(ReMVVMServer) public var clientWireNames: [String] {
        names.indices.filter { sendable[$0] }.map { names[$0] }.sorted()
    }

    /// Whether an action is registered under `wireName`.
    public func contains(_ wireName: String) -> Bool { index(of: wireName) != nil }

    /// Where `wireName` is registered.
    ///
    /// An app has a handful of action types: comparing the names of the same length costs less than hashing the
    /// one asked for, which every dispatch does.
    private func index(of wireName: String) -> Int? {
        guard names.count <= Self.namesCompared else { return indexByName[wireName] }
        let length = wireName.utf8.count
        for index in names.indices where names[index].utf8.count == length && names[index] == wireName {
            return index
        }
        return nil
    }

    /// Where the wire name spelled by `bytes[range]` (UTF-8) is registered.
    private func index(ofUTF8 range: Range<Int>, in bytes: [UInt8]) -> Int? {
        guard names.count <= Self.namesCompared else {
            return indexByName[String(decoding: bytes[range], as: UTF8.self)]
        }
        let wireName = bytes.span.extracting(range)
        let names = nameBytes.span
        for index in nameRanges.indices where nameRanges[index].count == range.count {
            if names.extracting(nameRanges[index]).bytesEqual(wireName) { return index }
        }
        return nil
    }

    /// Up to how many action types a wire name is found by comparing rather than hashing.
    private static var namesCompared: Int { 16 }

    private mutating func add(_ name: String, _ decoder: ActionDecoder, replacing: Bool, sendable: Bool) {
        if let index = indexByName[name] {
            if replacing { decoders[index] = decoder }
            if sendable { self.sendable[index] = true }
            return
        }
        indexByName[name] = names.count
        names.append(name)
        nameRanges.append(nameBytes.count..<(nameBytes.count + name.utf8.count))
        nameBytes.append(contentsOf: name.utf8)
        decoders.append(decoder)
        self.sendable.append(sendable)
    }

    /// Decodes one `{"type", "payload"}` object or an array of them (a batch).
    ///
    /// Either every action decodes or the call throws, so a batch is never half-applied. The body is read in
    /// one pass, without building the envelope objects, and each payload decoded straight from its parsed value.
    /// Invalid JSON anywhere in the body is reported before any problem with an envelope's shape; envelopes are
    /// then checked and decoded in order, and the first problem throws.
    @_spi(ReMVVMServer) public func decodeActions(from json: some Collection<UInt8>) throws(ActionDecodingError)
        -> [any StoreAction]
    {
        try decodeActions(from: json, fromClient: false)
    }

    /// Decodes what a client sent, as ``decodeActions(from:)`` does, but only action types clients may send:
    /// any other type is refused (``ActionDecodingError/Reason/serverOnly(_:)``) before its payload is read, and
    /// an unknown type's error lists the types clients may send.
    @_spi(ReMVVMServer) public func decodeClientActions(from json: some Collection<UInt8>)
        throws(ActionDecodingError) -> [any StoreAction]
    {
        try decodeActions(from: json, fromClient: true)
    }

    private func decodeActions(from json: some Collection<UInt8>, fromClient: Bool) throws(ActionDecodingError)
        -> [any StoreAction]
    {
        let bytes = Array(json)
        var parser = JSONParser(bytes: bytes, maxDepth: Self.maxDepth)
        let envelopes: ActionEnvelopes
        do {
            envelopes = try parser.parseActionEnvelopes()
        } catch {
            throw ActionDecodingError(.malformedJSON(error.description))
        }
        switch envelopes {
        case .single(let item):
            return [try decode(item, in: bytes, index: nil, fromClient: fromClient)]
        case .batch(let items):
            guard !items.isEmpty else { throw ActionDecodingError(.emptyBatch) }
            var actions: [any StoreAction] = []
            actions.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                actions.append(try decode(item, in: bytes, index: index, fromClient: fromClient))
            }
            return actions
        case .neither:
            throw ActionDecodingError(
                .malformedEnvelope(
                    "an action must be an object {\"type\": String, \"payload\": {...}} or an array of them"))
        }
    }

    /// Decodes one envelope of a body; `index` is its place in a batch. From a client, a type clients may not
    /// send is refused before its payload is decoded.
    private func decode(_ item: ActionEnvelopes.Item, in bytes: [UInt8], index: Int?, fromClient: Bool)
        throws(ActionDecodingError) -> any StoreAction
    {
        let entry: Int
        let payload: JSONValue?
        switch item {
        case .notAnObject(let value):
            throw ActionDecodingError(
                .malformedEnvelope("an action must be an object, not \(value.typeName)"), index: index)
        case .action(type: nil, payload: _):
            throw ActionDecodingError(.malformedEnvelope("missing 'type'"), index: index)
        case .action(type: .utf8(let range), let sent):
            guard let found = self.index(ofUTF8: range, in: bytes) else {
                throw unknownType(String(decoding: bytes[range], as: UTF8.self), index: index, fromClient: fromClient)
            }
            (entry, payload) = (found, sent)
        case .action(type: .value(.string(let type)), let sent):
            guard let found = self.index(of: type) else {
                throw unknownType(type, index: index, fromClient: fromClient)
            }
            (entry, payload) = (found, sent)
        case .action(type: .value, payload: _):
            throw ActionDecodingError(.malformedEnvelope("'type' must be a string naming the action"), index: index)
        }
        if fromClient, !sendable[entry] {
            var error = ActionDecodingError(.serverOnly(names[entry]), index: index)
            error.clientTypes = clientWireNames
            throw error
        }
        do {
            return try decodePayload(payload ?? .null, entry: entry, type: names[entry], index: index)
        } catch {
            throw error.pointingAtPayload(in: bytes)
        }
    }

    /// The error for an unknown type; for a client, with the types it may send.
    private func unknownType(_ type: String, index: Int?, fromClient: Bool) -> ActionDecodingError {
        var error = ActionDecodingError(.unknownType(type), index: index)
        if fromClient { error.clientTypes = clientWireNames }
        return error
    }

    /// Decodes one action from its wire name and its payload's JSON (nil for no payload).
    @_spi(ReMVVMServer) public func decodeAction(type wireName: String, payload: Data?) throws(ActionDecodingError)
        -> any StoreAction
    {
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
    static let maxDepth = 512

    /// Decodes `payload` as the action registered under `type`; `index` is the action's place in a batch.
    func decodePayload(_ payload: JSONValue, type: String, index: Int?) throws(ActionDecodingError)
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
            // A missing or null payload decodes as an empty object; matched, not compared with `==`, which is a
            // call into the JSON module.
            if case .null = payload { return try decoders[entry].decode(.object([String: JSONValue]())) }
            return try decoders[entry].decode(payload)
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
    /// The type's ``StoreAction/wireVersion``.
    let version: Int
    /// The type's ``StoreAction/migrate(payload:from:)``.
    let migrate: @Sendable (Data, Int) throws -> any StoreAction
    /// The type's ``StoreAction/downgrade(payload:to:)``.
    let downgrade: @Sendable (Data, Int) throws -> Data

    init<Action: StoreAction>(_ type: Action.Type) {
        decode = { try $0.decoded(as: Action.self) }
        version = Action.wireVersion
        migrate = { try Action.migrate(payload: $0, from: $1) }
        downgrade = { try Action.downgrade(payload: $0, to: $1) }
    }
}

/// An action in its wire form `{"type": wire name, "payload": action}`, for encoding (logs, clients).
@_spi(ReMVVMServer) public struct ActionEnvelope: Encodable, Sendable {
    /// The action.
    @_spi(ReMVVMServer) public let action: any StoreAction

    /// Wraps `action`.
    @_spi(ReMVVMServer) public init(_ action: any StoreAction) {
        self.action = action
    }

    private enum CodingKeys: String, CodingKey { case type, payload }

    @_spi(ReMVVMServer) public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action.wireName, forKey: .type)
        try container.encode(action, forKey: .payload)
    }
}
