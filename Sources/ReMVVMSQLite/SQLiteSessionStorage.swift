import Foundation
import GRDB
import Logging
import ReMVVMPersistence
import Synchronization

/// Durable sessions in one embedded SQLite file (WAL mode, `synchronous=FULL` by default, so a
/// transaction is on disk when ``write(_:)`` returns).
///
/// A damaged file never stops the server: it is moved aside with a timestamp suffix, the
/// sessions that can still be read from it are copied into a fresh file, and the rest is
/// logged as lost.
public final class SQLiteSessionStorage: SessionStorage {
    /// How hard SQLite makes each transaction durable.
    public enum Synchronous: String, Sendable {
        /// fsync at every commit: nothing acknowledged is lost, even on power loss.
        case full = "FULL"
        /// fsync at checkpoints only: survives a process crash, may lose the last commits on power loss.
        case normal = "NORMAL"
    }

    /// The database file.
    public let path: String
    let database: DatabaseQueue
    let logger: Logger
    private let isClosed = Atomic<Bool>(false)

    /// The database file's name inside a data directory.
    public static let fileName = "sessions.sqlite"

    /// Opens (or creates) `sessions.sqlite` in `directory`, creating the directory (owner-only,
    /// since it holds session tokens) on first use.
    public convenience init(
        directory: String, synchronous: Synchronous = .full, logger: Logger = Logger(label: "remvvm.sqlite")
    ) throws(StorageError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable("cannot create the data directory '\(directory)': \(error)")
        }
        try self.init(
            path: (directory as NSString).appendingPathComponent(Self.fileName), synchronous: synchronous,
            logger: logger)
    }

    /// Opens (or creates) the database at `path`. A damaged file is moved aside and replaced.
    ///
    /// - Throws: ``StorageError`` when the file cannot be opened at all (permissions, a newer
    ///   server's schema); never for a damaged file.
    public init(
        path: String, synchronous: Synchronous = .full, logger: Logger = Logger(label: "remvvm.sqlite")
    ) throws(StorageError) {
        self.path = path
        self.logger = logger
        do {
            database = try Self.open(path, synchronous: synchronous)
        } catch let error where error.isCorrupt {
            let aside = try Self.moveAside(path)
            logger.error(
                "the session database '\(path)' is damaged (\(error)); moved it aside to '\(aside)' and started a fresh one",
                metadata: ["storage.path": "\(path)", "storage.damaged": "\(aside)"])
            database = try Self.open(path, synchronous: synchronous)
            salvage(from: aside)
        }
    }

    /// The identity of every stored session, oldest first.
    public func list() throws(StorageError) -> [SessionRecord] {
        try access { try database.read { db in try Self.records(in: db) } }
    }

    /// One session with its snapshot and the log after it, read in one transaction.
    public func load(_ id: String) throws(StorageError) -> StoredSession? {
        try access { try database.read { db in try Self.session(id, in: db) } }
    }

    /// Applies `changes` in one transaction; with ``Synchronous/full`` it is fsynced when this returns.
    public func write(_ changes: [StorageChange]) throws(StorageError) {
        guard !changes.isEmpty else { return }
        try access {
            try database.write { db in
                for change in changes { try Self.apply(change, in: db) }
            }
        }
    }

    /// Deletes at most `limit` sessions that expired before `now`, each with its snapshot, log and keys, in one
    /// transaction (fsynced with ``Synchronous/full``); returns their ids.
    public func deleteExpired(before now: Date, limit: Int) throws(StorageError) -> [String] {
        try access {
            try database.write { db in try Self.deleteExpired(before: now.timeIntervalSince1970, limit: limit, in: db) }
        }
    }

    /// Closes the database (SQLite checkpoints the WAL into the file). Idempotent.
    public func close() {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        do {
            try database.close()
        } catch {
            logger.error("closing the session database failed", metadata: ["error": "\(error)"])
        }
    }

    /// Runs a database call, translating its errors.
    private func access<Result>(_ body: () throws -> Result) throws(StorageError) -> Result {
        guard !isClosed.load(ordering: .relaxed) else { throw .closed }
        do {
            return try body()
        } catch {
            throw Self.storageError(error)
        }
    }
}
