import Foundation
import ReMVVMPostgres

/// A fresh database on the PostgreSQL that `REMVVM_TEST_DATABASE_URL` names (scripts/test starts
/// one), dropped at the end: each test starts from an empty schema. Shared by the storage, multi-node
/// and subprocess durability tests.
package final class TestDatabase: Sendable {
    /// The server's URL, or nil when no PostgreSQL was given (the tests are then disabled).
    package static let baseURL = ProcessInfo.processInfo.environment["REMVVM_TEST_DATABASE_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Why the PostgreSQL tests may be disabled.
    package static let whyDisabled =
        "REMVVM_TEST_DATABASE_URL is not set (scripts/test starts a PostgreSQL and sets it)"

    /// Generous deadlines: creating and dropping databases on two cores shared by the whole suite takes seconds.
    package static let timeouts = PostgresTimeouts(call: .seconds(60))

    /// The database's name.
    package let name: String
    /// The URL of this test's database.
    package let url: String

    /// Creates a database with a fresh name.
    package init() throws {
        guard let base = Self.baseURL else { throw TestDatabaseError("REMVVM_TEST_DATABASE_URL is not set") }
        name = "remvvm_test_\(UUID().uuidString.prefix(8).lowercased())"
        url = Self.url(base, database: name)
        let admin = try PostgresConnection(url: base, applicationName: "remvvm-tests", timeouts: Self.timeouts)
        try admin.execute("CREATE DATABASE \(name)")
    }

    /// A connection to this test's database, to look at or change it behind the storage's back.
    package func connect() throws -> PostgresConnection {
        try PostgresConnection(url: url, applicationName: "remvvm-tests", timeouts: Self.timeouts)
    }

    /// A connection to the server's own database, for what a test does to this one from outside.
    package func adminConnection() throws -> PostgresConnection {
        guard let base = Self.baseURL else { throw TestDatabaseError("REMVVM_TEST_DATABASE_URL is not set") }
        return try PostgresConnection(url: base, applicationName: "remvvm-tests", timeouts: Self.timeouts)
    }

    /// Makes PostgreSQL refuse this database's connections and ends those open (`down`), or accept them again.
    package func refuseConnections(_ down: Bool) throws {
        let admin = try adminConnection()
        try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS \(down ? "false" : "true")")
        guard down else { return }
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1::text", [.text(name)])
    }

    /// Waits (at most fifteen seconds: the suite shares two cores) until `count` takeover listeners are
    /// connected and listening.
    package func waitForListeners(_ count: Int) async throws {
        try await waitForListeners(count, role: "listener")
    }

    /// Waits (at most a minute: a loaded machine starts them slowly) until `count` topic listeners are connected and listening.
    package func waitForTopicListeners(_ count: Int) async throws {
        try await waitForListeners(count, role: "topics")
    }

    private func waitForListeners(_ count: Int, role: String) async throws {
        let connection = try connect()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let rows = try connection.execute(
                """
                SELECT count(*) FROM pg_stat_activity WHERE datname = $1::text
                    AND application_name LIKE '% ' || $2::text AND query LIKE 'LISTEN%'
                """, [.text(name), .text(role)])
            if try rows.int64(0, 0) >= count { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestDatabaseError("\(count) \(role) listeners did not start within a minute")
    }

    deinit {
        guard let base = Self.baseURL,
            let admin = try? PostgresConnection(url: base, applicationName: "remvvm-tests", timeouts: Self.timeouts)
        else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// `base` with its database (the last path component) replaced by `database`.
    package static func url(_ base: String, database: String) -> String {
        let (address, query) =
            base.firstIndex(of: "?").map { (String(base[..<$0]), String(base[$0...])) } ?? (base, "")
        guard let slash = address.lastIndex(of: "/"), address[..<slash].hasSuffix("/") == false else {
            return address + "/" + database + query
        }
        return address[...slash] + database + query
    }
}

/// A test database could not be made or used.
package struct TestDatabaseError: Error, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
