/// Why durable storage could not be read or written.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case unavailable
        case corrupt
        case incompatible
        case closed
        case fenced
        case rejected
    }

    private let code: Code
    /// What went wrong, for logs.
    public let message: String
    /// For ``fenced(_:sessions:)``: every session of the write that another node took over.
    public let lostSessions: [String]

    private init(code: Code, message: String, lostSessions: [String] = []) {
        self.code = code
        self.message = message
        self.lostSessions = lostSessions
    }

    /// The storage failed to read or write (I/O error, full disk, permissions).
    public static func unavailable(_ message: String) -> StorageError {
        StorageError(code: .unavailable, message: message)
    }

    /// The stored data is damaged.
    public static func corrupt(_ message: String) -> StorageError { StorageError(code: .corrupt, message: message) }

    /// The stored data was written by a newer version and cannot be read by this one.
    public static func incompatible(_ message: String) -> StorageError {
        StorageError(code: .incompatible, message: message)
    }

    /// Another node took over the `sessions` this write touches: their leases' fences moved on, so
    /// nothing of the write was stored (and this node must drop its copies of them).
    public static func fenced(_ message: String, sessions: [String] = []) -> StorageError {
        StorageError(code: .fenced, message: message, lostSessions: sessions)
    }

    /// The storage refused the write for what it holds (bad data, a violated constraint): the same write would fail
    /// the same way again, unlike ``unavailable(_:)``.
    public static func rejected(_ message: String) -> StorageError {
        StorageError(code: .rejected, message: message)
    }

    /// The storage was closed.
    public static let closed = StorageError(code: .closed, message: "the storage is closed")

    /// Whether the stored data is damaged.
    public var isCorrupt: Bool { code == .corrupt }
    /// Whether the data was written by a newer version.
    public var isIncompatible: Bool { code == .incompatible }
    /// Whether the storage was closed.
    public var isClosed: Bool { code == .closed }
    /// Whether another node owns a session the write touched.
    public var isFenced: Bool { code == .fenced }
    /// Whether the storage refused the write for its content, so that retrying it cannot help.
    public var isRejected: Bool { code == .rejected }

    /// The message.
    public var description: String { message }
}
