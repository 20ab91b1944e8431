import Foundation
import PostgresTestSupport
import ReMVVMPersistence
import Testing

@testable import ReMVVMPostgres

/// Every call on a connection has a deadline, and the server's own timeouts are set on it.
@Suite(.enabled(if: TestDatabase.baseURL != nil, Comment(rawValue: TestDatabase.whyDisabled)))
final class PostgresConnectionTests {
    let database: TestDatabase

    init() throws {
        database = try TestDatabase()
    }

    @Test func theServersTimeoutsAndKeepalivesFollowTheCallDeadline() throws {
        let timeouts = PostgresTimeouts(call: .milliseconds(1_500))
        let connection = try PostgresConnection(url: database.url, applicationName: "remvvm-tests", timeouts: timeouts)
        let settings = try connection.execute(
            """
            SELECT current_setting('statement_timeout'), current_setting('lock_timeout'),
                current_setting('idle_in_transaction_session_timeout'), current_setting('tcp_user_timeout'),
                current_setting('synchronous_commit')
            """)
        #expect(try settings.text(0, 0) == "1500ms")
        #expect(try settings.text(0, 1) == "1500ms")
        #expect(try settings.text(0, 2) == "10s")
        #expect(try settings.text(0, 4) == "on")
    }

    /// A statement that outlasts the call deadline fails at the deadline (not when the server ends it), closes the
    /// connection, and the storage's next call connects again.
    @Test func aCallPastItsDeadlineFailsThenTheStorageConnectsAgain() throws {
        // The server's statement_timeout is the same deadline: set it longer here so the client's deadline acts.
        let timeouts = PostgresTimeouts(call: .milliseconds(300))
        let connection = try PostgresConnection(url: database.url, applicationName: "remvvm-tests", timeouts: timeouts)
        try connection.execute("SET statement_timeout = '10s'")
        let started = ContinuousClock.now
        #expect(throws: PostgresError.self) { try connection.execute("SELECT pg_sleep(5)") }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(2), "the call took \(took)")
        #expect(!connection.isOpen)

        let storage = try PostgresSessionStorage(url: database.url, node: "deadline", timeouts: timeouts)
        defer { storage.close() }
        do {
            _ = try storage.access(storage.topicSlot) { connection throws(PostgresError) in
                try connection.execute("SET statement_timeout = '10s'")
                return try connection.execute("SELECT pg_sleep(5)")
            }
            Issue.record("a call past its deadline succeeded")
        } catch {
            #expect(!error.isRejected, "a timeout is worth retrying: \(error)")
        }
        let rows = try storage.access(storage.topicSlot) { connection throws(PostgresError) in
            try connection.execute("SELECT 1::integer")
        }
        #expect(try rows.int32(0, 0) == 1)
    }
}
