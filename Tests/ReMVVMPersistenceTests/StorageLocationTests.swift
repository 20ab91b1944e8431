import Foundation
import ReMVVMSQLite
import Testing

/// What the server's start line says of a SQLite storage: the file that holds the sessions.
@Suite struct StorageLocationTests {
    @Test func aSQLiteStorageNamesItsFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remvvm-location-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try SQLiteSessionStorage(directory: directory)
        defer { storage.close() }
        #expect(storage.location == "the SQLite file \(directory)/sessions.sqlite")
    }
}
