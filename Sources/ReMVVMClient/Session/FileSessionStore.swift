public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``SessionStore`` in one JSON file, readable by its owner only, replaced atomically.
public struct FileSessionStore: SessionStore {
    /// The file.
    public let url: URL

    /// Keeps the session in the file at `url`; its folder must exist.
    public init(url: URL) { self.url = url }

    public func load() throws -> StoredSession? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try JSONDecoder().decode(StoredSession.self, from: Data(contentsOf: url))
    }

    public func save(_ session: StoredSession) throws {
        try AtomicFile.write(JSONEncoder().encode(session), to: url)
    }

    public func clear() throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        try FileManager.default.removeItem(at: url)
    }
}

/// Whole-file writes that a crash leaves either old or new, never half written.
enum AtomicFile {
    /// Writes `data` to a temporary file beside `url`, owner-only, and renames it over `url`.
    static func write(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        guard
            FileManager.default.createFile(
                atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary.path]) }
        // rename(2): atomic on one file system, which FileManager's replace does not promise on every platform.
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, "errno": code])
        }
    }
}
