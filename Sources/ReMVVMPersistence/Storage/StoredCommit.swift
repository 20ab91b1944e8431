import Foundation

/// One logged commit: the version it produced and the actions the reducers applied, as a JSON
/// array of `{"type", "payload"}` envelopes.
public struct StoredCommit: Sendable, Equatable {
    /// The version the commit produced.
    public var version: UInt64
    /// The format of ``actions`` (``RecordFormat/current`` when written by this version).
    public var format: Int
    /// The actions as a JSON array of wire envelopes.
    public var actions: Data
    /// The payload version each action type was written at (``StoreAction/wireVersion``), for the types whose
    /// version is not 1: empty for every entry of an app that never raised one, and for entries stored before.
    public var versions: [String: Int]

    /// A logged commit.
    public init(version: UInt64, format: Int = RecordFormat.current, actions: Data, versions: [String: Int] = [:]) {
        self.version = version
        self.format = format
        self.actions = actions
        self.versions = versions
    }

    /// ``versions`` as the storages keep them: JSON with sorted keys, nil when empty.
    public var versionsJSON: String? {
        guard !versions.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Strings and integers only: encoding cannot fail.
        return (try? encoder.encode(versions)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The versions stored as `json` (``versionsJSON``); empty for none.
    ///
    /// - Throws: ``StorageError/corrupt(_:)`` when the stored text is not such an object.
    public static func versions(fromJSON json: String?) throws(StorageError) -> [String: Int] {
        guard let json else { return [:] }
        do {
            return try JSONDecoder().decode([String: Int].self, from: Data(json.utf8))
        } catch {
            throw StorageError.corrupt("a log entry's action versions are not readable: \(error)")
        }
    }
}
