import ReMVVMPersistence

extension SQLiteSessionStorage {
    /// The database file, as the server's start line names it.
    public var location: String { "the SQLite file \(path)" }
}
