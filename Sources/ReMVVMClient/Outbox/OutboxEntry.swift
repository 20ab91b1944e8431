import Foundation

/// One queued action: its wire name, its JSON body and the `Idempotency-Key` every attempt sends.
///
/// The key is made when the action is queued and kept with it, so an attempt repeated after a lost answer, a
/// server crash or the client's own restart is recognised by the server and applied once.
struct OutboxEntry: Codable, Sendable, Hashable {
    /// The `Idempotency-Key`.
    let key: String
    /// The action's wire name.
    let type: String
    /// The request body: `{"type": …, "payload": …}`.
    let body: Data
}

/// The outbox's entries in one JSON file, rewritten atomically on every change: a killed process leaves the file
/// as of its last completed change.
struct OutboxFile: Sendable {
    let url: URL

    func load() throws -> [OutboxEntry] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return try JSONDecoder().decode([OutboxEntry].self, from: Data(contentsOf: url))
    }

    func save(_ entries: [OutboxEntry]) throws {
        try AtomicFile.write(JSONEncoder().encode(entries), to: url)
    }
}
