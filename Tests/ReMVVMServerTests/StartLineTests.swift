import InMemoryLogging
import Logging
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMPersistence
import ReMVVMServer
import Testing

/// The start line says where sessions live, so an app that passed no storage learns that its sessions end with the
/// process, and an operator reads which file or database holds them.
@Suite("Where sessions live, at start")
struct StartLineTests {
    /// A storage that keeps nothing and says where it would.
    final class NamedStorage: SessionStorage {
        func list() throws(StorageError) -> [SessionRecord] { [] }
        func load(_ id: String) throws(StorageError) -> StoredSession? { nil }
        func write(_ changes: [StorageChange]) throws(StorageError) {}
        func close() {}
        var location: String { "the test's storage" }
    }

    /// The info lines `start()` logs.
    static func startLines(_ make: (Logger) -> StoreServer) throws -> [String] {
        let handler = InMemoryLogHandler()
        let server = make(Logger(label: "remvvm.test") { _ in handler })
        try server.start()
        server.stop()
        return handler.entries.filter { $0.level == .info }.map { "\($0.message)" }
    }

    @Test func withoutAStorageSessionsLiveInMemoryOnly() throws {
        let lines = try Self.startLines {
            StoreServer(TestApp.definition(), configuration: TestServer.configuration, logger: $0)
        }
        #expect(
            lines.contains(
                "sessions live in memory only and end with the process; StoreServer(_:configuration:storage:) keeps "
                    + "them (SQLiteSessionStorage, PostgresSessionStorage)"), "\(lines)")
    }

    @Test func withAStorageTheLineNamesIt() throws {
        let lines = try Self.startLines {
            StoreServer(
                TestApp.definition(), configuration: TestServer.configuration, storage: NamedStorage(), logger: $0)
        }
        #expect(lines.contains("sessions live in the test's storage"), "\(lines)")
    }
}
