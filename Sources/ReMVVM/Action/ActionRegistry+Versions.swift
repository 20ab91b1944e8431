public import Foundation
import ReMVVMJSON

extension ActionRegistry {
    /// The payload version this build reads for `wireName` (its type's ``StoreAction/wireVersion``); nil for a
    /// name it does not know.
    @_spi(ReMVVMServer) public func wireVersion(of wireName: String) -> Int? { decoder(for: wireName)?.version }

    /// The wire names whose types declare a payload version other than 1, with that version: what a durable
    /// log records beside each entry, so that a later build knows which shape each action was written in.
    @_spi(ReMVVMServer) public var versionedTypes: [String: Int] {
        var versions: [String: Int] = [:]
        for name in wireNames {
            if let version = wireVersion(of: name), version != 1 { versions[name] = version }
        }
        return versions
    }

    /// `payload`, the JSON of an action of the type registered under `wireName` at its current version, in the shape
    /// of `version` (``StoreAction/downgrade(payload:to:)``).
    ///
    /// - Throws: ``ActionMigrationError`` for an unknown type, or what the type's downgrade throws.
    @_spi(ReMVVMServer) public func downgradePayload(of wireName: String, _ payload: Data, to version: Int) throws
        -> Data
    {
        guard let decoder = decoder(for: wireName) else {
            throw ActionMigrationError(type: wireName, from: 0, to: version, reason: "not an action type of this app")
        }
        return try decoder.downgrade(payload, version)
    }

    /// Decodes logged actions, as ``decodeActions(from:)`` does (but slower: call that one when `versions` are
    /// ``versionedTypes``), reading each action whose type was written at
    /// another version (`versions`: wire name to the version it was written at; a type not listed was written
    /// at version 1) through its type's ``StoreAction/migrate(payload:from:)``.
    ///
    /// - Throws: ``ActionDecodingError`` for what does not decode, ``ActionMigrationError`` for a payload
    ///   written at a version this build cannot read (``ActionMigrationError/isNewer`` when a newer build wrote it).
    @_spi(ReMVVMServer) public func decodeActions(from json: some Collection<UInt8>, writtenAt versions: [String: Int])
        throws -> [any StoreAction]
    {
        let bytes = Array(json)
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: bytes)
        } catch {
            throw ActionDecodingError(.malformedJSON("\(error)"))
        }
        let items: [JSONValue]
        switch parsed {
        case .array(let array): items = array
        case .object: items = [parsed]
        default: throw ActionDecodingError(.malformedEnvelope("a log entry must be an array of actions"))
        }
        var actions: [any StoreAction] = []
        actions.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard case .object(let members) = item, case .string(let type)? = members["type"] else {
                throw ActionDecodingError(.malformedEnvelope("missing 'type'"), index: index)
            }
            guard let decoder = decoder(for: type) else {
                throw ActionDecodingError(.unknownType(type), index: index)
            }
            let payload = members["payload"] ?? .null
            let written = versions[type] ?? 1
            guard written != decoder.version else {
                actions.append(try decodePayload(payload, type: type, index: index))
                continue
            }
            guard written < decoder.version else {
                throw ActionMigrationError(
                    type: type, from: written, to: decoder.version,
                    reason: "written by a newer build; this one reads up to version \(decoder.version)")
            }
            do {
                actions.append(try decoder.migrate(Data(payload.serialized()), written))
            } catch let error as ActionMigrationError {
                throw error
            } catch {
                throw ActionMigrationError(type: type, from: written, to: decoder.version, reason: "\(error)")
            }
        }
        return actions
    }
}
