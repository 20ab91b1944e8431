import Synchronization

/// A ``SessionStore`` in memory: the session lasts as long as the process (tests, previews).
public final class MemorySessionStore: SessionStore {
    private let session: Mutex<StoredSession?>

    /// Starts with `session`, or none.
    public init(_ session: StoredSession? = nil) { self.session = Mutex(session) }

    public func load() -> StoredSession? { session.withLock { $0 } }
    public func save(_ session: StoredSession) { self.session.withLock { $0 = session } }
    public func clear() { session.withLock { $0 = nil } }
}
