import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// The server's housekeeping thread: long-poll timeouts, heartbeats and expiry, each when due.
    @Suite("Housekeeping")
    struct HousekeeperTests {
        /// An idle server's housekeeping wakes about once a second (idle sessions are looked for by the second),
        /// not at every 50 ms tick of the long-poll timeouts, which would be some forty times in two seconds.
        @Test func anIdleServerWakesItsHousekeepingAboutOnceASecond() async throws {
            try await withTestServer { server in
                let api = try server.client()
                _ = try await api.createSession()
                let before = server.server.housekeepingRounds
                try await Task.sleep(for: .seconds(2))
                let rounds = server.server.housekeepingRounds - before
                #expect(rounds >= 1, "the housekeeping did not wake in 2 s")
                #expect(rounds <= 6, "\(rounds) wake-ups in 2 s of idling")
            }
        }
    }
}
