/// Where a client keeps its session between launches, so a restarted app resumes the same store.
///
/// ``FileSessionStore`` keeps it in a file; an iOS app would rather plug in the Keychain. Calls are synchronous and
/// rare (once at connection, once when a session is created or found gone).
public protocol SessionStore: Sendable {
    /// The stored session, or nil when there is none.
    func load() throws -> StoredSession?
    /// Replaces the stored session.
    func save(_ session: StoredSession) throws
    /// Forgets the stored session (the server no longer knows it).
    func clear() throws
}
