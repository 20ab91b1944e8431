import HTTPTestClient
import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// The server's housekeeping thread: long-poll timeouts, heartbeats and expiry, each when due, on a clock the
    /// test moves.
    @Suite("Housekeeping")
    struct HousekeeperTests {
        /// The `number`th sleep of the housekeeping thread, waited for on a thread of our own.
        func sleep(_ number: Int, of clock: ManualServerClock) async throws -> ManualServerClock.Sleep {
            try #require(try await onOwnThread { clock.sleep(number: number) }, "no sleep number \(number)")
        }

        /// An idle server's housekeeping sleeps a second between rounds (idle sessions are looked for by the
        /// second), not the 50 ms of a long-poll timeout tick.
        @Test func anIdleServerSleepsASecondBetweenHousekeepingRounds() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock) { server in
                _ = try await server.client().createSession()
                #expect(try await sleep(1, of: clock).length == .seconds(1))
                #expect(server.server.housekeepingRounds == 1)
                for round in 2...4 {
                    clock.advance(by: .seconds(1))
                    #expect(try await sleep(round, of: clock).length == .seconds(1))
                    #expect(server.server.housekeepingRounds == round)
                }
            }
        }

        @Test func heartbeatsShortenTheSleep() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock, configure: { $0.heartbeatInterval = .milliseconds(300) }) { _ in
                var lengths: [Duration] = []
                for number in 1...4 {
                    if number > 1 { clock.advance(by: .milliseconds(300)) }
                    lengths.append(try await sleep(number, of: clock).length)
                }
                // Each heartbeat 300 ms after the last, until the expiry scan's second comes first.
                #expect(lengths == [.milliseconds(300), .milliseconds(300), .milliseconds(300), .milliseconds(100)])
            }
        }

        /// A long-poll whose timeout comes before the planned wake-up wakes the housekeeping, which then sleeps
        /// until that timeout and answers the poll when the clock reaches it.
        @Test func aParkedPollWakesTheHousekeepingAndTimesOutWhenTheClockSaysSo() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock) { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(try await sleep(1, of: clock).length == .seconds(1))
                let poll = try await api.startPoll(session, query: "?views=counter&since=\(session.version)&wait=500ms")
                // Woken by the poll's nearer deadline: it sleeps again, until the poll's timeout (500 ms and up to
                // 50 ms of jitter, rounded up to a 50 ms tick).
                let untilTimeout = try await sleep(2, of: clock)
                #expect(untilTimeout.length >= .milliseconds(500) && untilTimeout.length <= .milliseconds(600))
                #expect(try await api.gauge("remvvm_parked_polls") == 1)
                clock.advance(by: untilTimeout.length)
                let response = try await poll.response()
                #expect(response.status == 200)
                #expect(try response.json()["to"]?.stringValue == session.version)
            }
        }
    }
}
