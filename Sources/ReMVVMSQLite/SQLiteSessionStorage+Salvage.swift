import Foundation
import GRDB
import Logging
import ReMVVMPersistence

extension SQLiteSessionStorage {
    /// Renames a damaged file (and its WAL and shared-memory files) to `<path>.damaged-<UTC time>`.
    static func moveAside(_ path: String) throws(StorageError) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withTimeZone]
        var aside = "\(path).damaged-\(formatter.string(from: Date()))"
        var attempt = 1
        while FileManager.default.fileExists(atPath: aside) {
            attempt += 1
            aside = "\(path).damaged-\(formatter.string(from: Date()))-\(attempt)"
        }
        do {
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
            }
        } catch {
            throw .unavailable("cannot move the damaged session database '\(path)' aside: \(error)")
        }
        return aside
    }

    /// Copies every session that can still be read from the damaged file at `aside`.
    ///
    /// It reads a copy, whose header is made to agree with the file's real length when the file
    /// was truncated: SQLite refuses every query of a file shorter than its header says, while
    /// the pages that are left often hold whole sessions.
    func salvage(from aside: String) {
        let copy = aside + ".reading"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy + suffix) }
        }
        let damaged: DatabaseQueue
        let ids: [String]
        do {
            try Self.copyForReading(aside, to: copy)
            damaged = try DatabaseQueue(path: copy)
            ids = try damaged.read { db in try String.fetchAll(db, sql: "SELECT id FROM sessions") }
        } catch {
            logger.error(
                "no session could be recovered from the damaged database",
                metadata: ["storage.damaged": "\(aside)", "error": "\(error)"])
            return
        }
        var recovered = 0
        var lost = 0
        for id in ids {
            do {
                guard let session = try damaged.read({ db in try Self.session(id, in: db) }) else { continue }
                var changes: [StorageChange] = [.create(session.record)]
                if let snapshot = session.snapshot { changes.append(.snapshot(session: id, snapshot)) }
                changes.append(.append(session: id, commits: session.log))
                changes += session.keys.map { .remember(session: id, $0) }
                try write(changes)
                recovered += 1
            } catch {
                lost += 1
                // The first few name their reason; the rest are only counted.
                guard lost <= 5 else { continue }
                logger.error(
                    "session \(id) could not be recovered from the damaged database",
                    metadata: ["session.id": "\(id)", "error": "\(error)"])
            }
        }
        try? damaged.close()
        logger.notice(
            "recovered \(recovered) of \(ids.count) sessions from the damaged database; \(lost) lost",
            metadata: ["storage.damaged": "\(aside)"])
    }

    /// Copies a damaged file and its WAL; if the file is shorter than its header says, cuts the
    /// copy to whole pages and writes that page count into its header.
    private static func copyForReading(_ path: String, to copy: String) throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let magic = Data("SQLite format 3\u{0}".utf8)
        if bytes.count >= 100, bytes.prefix(16) == magic {
            let rawSize = Int(bytes[16]) << 8 | Int(bytes[17])
            let pageSize = rawSize == 1 ? 65_536 : rawSize
            let headerPages = bytes[28..<32].reduce(0) { $0 << 8 | Int($1) }
            let pages = pageSize > 0 ? bytes.count / pageSize : 0
            if pages > 0, headerPages > pages {
                bytes = bytes.prefix(pages * pageSize)
                for index in 0..<4 { bytes[28 + index] = UInt8(truncatingIfNeeded: pages >> (8 * (3 - index))) }
            }
        }
        try bytes.write(to: URL(fileURLWithPath: copy))
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
        }
    }
}
