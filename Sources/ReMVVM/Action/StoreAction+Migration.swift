public import Foundation

extension StoreAction {
    /// Version 1: a type's payload keeps its first shape until the type says otherwise.
    public static var wireVersion: Int { 1 }

    /// Refuses: a type that has only ever had one payload shape has nothing older to read.
    public static func migrate(payload: Data, from version: Int) throws -> Self {
        throw ActionMigrationError(
            type: wireName, from: version, to: wireVersion,
            reason: "the type declares no migration (implement migrate(payload:from:))")
    }
}

extension StoreAction {
    /// Refuses: the type says nothing of how its older versions looked.
    public static func downgrade(payload: Data, to version: Int) throws -> Data {
        throw ActionMigrationError(
            type: wireName, from: wireVersion, to: version,
            reason: "the type declares no downgrade (implement downgrade(payload:to:))")
    }
}

/// Why a logged action of an older (or newer) payload version cannot be read by this build.
public struct ActionMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The action's wire name.
    public let type: String
    /// The version the payload was written at.
    public let from: Int
    /// The version this build reads.
    public let to: Int
    /// What went wrong.
    public let reason: String

    /// A migration failure of `type` from version `from` to `to`.
    public init(type: String, from: Int, to: Int, reason: String) {
        self.type = type
        self.from = from
        self.to = to
        self.reason = reason
    }

    /// Whether the payload was written by a newer build than this one: another node can read it.
    public var isNewer: Bool { from > to }

    /// `'type' version from → to: reason`.
    public var description: String { "'\(type)' version \(from) to \(to): \(reason)" }
}
