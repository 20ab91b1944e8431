import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    @Suite("Long-polling over HTTP")
    struct PollTests {
        /// How soon a parked poll must be answered after a change it watches (the server wakes it inside the
        /// dispatch, so this is mostly the loopback round trip).
        static let wakeBound: Duration = .milliseconds(100)

        @Test func aPollWithoutSinceAnswersFullViewsAtOnce() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.poll(session, query: "?views=counter,quote")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["from"] == .null)
                #expect(body["to"]?.stringValue == session.version)
                #expect(response.storeVersion == session.version)
                #expect(body["views"]?["counter"] == ["full": ["counter": "0"]])
                #expect(body["views"]?["quote"]?["full"] == session.views["quote"])
                #expect(body["views"]?.members.count == 2)
            }
        }

        @Test func aParkedPollIgnoresOtherViewsAndWakesPromptlyForAWatchedOne() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let poll = try await api.startPoll(session, query: "?views=counter&since=\(session.version)&wait=10s")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                // A change to another view leaves the poll parked.
                let login = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                #expect(login.status == 200)
                // A commit takes the waiters of the views it changed before the dispatch is answered: the poll's
                // waiter is still in the store, so nothing will answer the poll for this change.
                let store = try #require(server.server.api.sessions.all.first?.store)
                #expect(store.parkedWaiters == 1)
                #expect(try await api.gauge("remvvm_parked_polls") == 1)
                // A change to the watched view answers it at once.
                var (response, latency) = try await Self.wake(poll, session: session, api: api)
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["from"]?.stringValue == session.version)
                #expect(body["to"]?.stringValue == session.cursor(2))
                // The counter view is shorter than any patch, so it comes whole.
                #expect(body["views"] == ["counter": ["full": ["counter": "1"]]])
                // The bound is on the server, not on this machine's scheduler: a busy test run may delay one
                // round trip, so up to two more polls get their chance to show it.
                var latencies = [latency]
                var since = session.cursor(2)
                while latency >= Self.wakeBound, latencies.count < 3 {
                    let again = try await api.startPoll(session, query: "?views=counter&since=\(since)&wait=10s")
                    #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                    (response, latency) = try await Self.wake(again, session: session, api: api)
                    latencies.append(latency)
                    since = try #require(try response.json()["to"]?.stringValue)
                }
                #expect(latency < Self.wakeBound, "answered \(latencies) after the change")
            }
        }

        /// Dispatches `counter/increase` and reads the parked `poll`'s answer; the latency runs from the moment the
        /// dispatch was sent to the moment the poll's answer was read, both on client threads.
        private static func wake(
            _ poll: PendingResponse,
            session: TestSession,
            api: APIClient
        ) async throws -> (TestResponse, Duration) {
            let dispatch = try await api.start(
                "POST", session.path + "/actions", headers: [session.bearer, ("Content-Type", "application/json")],
                body: TestActions.increase.serialized())
            let response = try await poll.response()
            #expect(try await dispatch.response().status == 200)
            let latency = dispatch.sentAt.duration(to: response.receivedAt)
            #expect(latency > .zero, "the poll was answered before the change it reports")
            return (response, latency)
        }

        @Test func formatFullAnswersWholeViews() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.set(7))
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                let response = try await api.poll(
                    session, query: "?views=counter,login&since=\(session.version)&format=full")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["to"]?.stringValue == session.cursor(2))
                // The login view too, which a patch answer would patch: the full form writes every view whole.
                #expect(
                    body["views"] == [
                        "counter": ["full": ["counter": "7"]],
                        "login": ["full": ["firstName": "Ada", "lastName": "Lovelace", "loggedIn": true]],
                    ])
            }
        }

        /// The housekeeping's sleep until the timeout of a poll parked at `start` that waits `wait`: it ends after
        /// the wait, and within its jitter (a tenth) and a 50 ms tick (the idle second's sleep ends later).
        static func sleepUntilTimeout(of wait: Duration, from start: Int64, on clock: ManualServerClock) async throws
            -> ManualServerClock.Sleep
        {
            let latest = start + (wait + wait / 10 + .milliseconds(50)).nanoseconds
            let found = try await onOwnThread { clock.sleep { $0.deadline > start && $0.deadline <= latest } }
            let sleep = try #require(found, "the housekeeping never slept until the poll's timeout")
            #expect(sleep.deadline - start >= wait.nanoseconds, "timed out before its wait")
            return sleep
        }

        @Test func aTimedOutPollAnswersNoViewsAndTheCurrentVersion() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock) { server in
                let api = try server.client()
                let session = try await api.createSession()
                // Another view moved on before the poll: it still parks, and its timeout names the current version.
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                let start = clock.now()
                let poll = try await api.startPoll(session, query: "?views=counter&since=\(session.version)&wait=300ms")
                let timeout = try await Self.sleepUntilTimeout(of: .milliseconds(300), from: start, on: clock)
                clock.advance(by: .nanoseconds(timeout.deadline - start))
                let response = try await poll.response()
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["views"] == [:])
                #expect(body["from"]?.stringValue == session.version)
                #expect(body["to"]?.stringValue == session.cursor(1))
                #expect(response.storeVersion == session.cursor(1))
            }
        }

        @Test func withoutWaitAPollWaitsTheDefault() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock, configure: { $0.defaultPollWait = .milliseconds(200) }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let start = clock.now()
                let poll = try await api.startPoll(session, query: "?since=\(session.version)")
                let timeout = try await Self.sleepUntilTimeout(of: .milliseconds(200), from: start, on: clock)
                clock.advance(by: .nanoseconds(timeout.deadline - start))
                let response = try await poll.response()
                #expect(response.status == 200)
                #expect(try response.json()["views"] == [:])
            }
        }

        @Test func aWaitAboveTheMaximumIsCut() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock, configure: { $0.maxPollWait = .milliseconds(200) }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                // An explicit wait and the default (30 s) alike.
                for query in ["?since=\(session.version)&wait=60s", "?since=\(session.version)"] {
                    let start = clock.now()
                    let poll = try await api.startPoll(session, query: query)
                    let timeout = try await Self.sleepUntilTimeout(of: .milliseconds(200), from: start, on: clock)
                    clock.advance(by: .nanoseconds(timeout.deadline - start))
                    let response = try await poll.response()
                    #expect(response.status == 200)
                    #expect(try response.json()["views"] == [:], "\(query)")
                }
            }
        }

        @Test func anEffectsResultReachesAParkedPoll() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let load = try await api.dispatch(session, TestActions.loadQuote, query: "?views=quote")
                #expect(load.status == 200)
                let loading = try load.json()
                #expect(loading["views"]?["quote"]?["loading"] == true)
                let since = try #require(loading["version"]?.stringValue)
                let poll = try await api.startPoll(session, query: "?views=quote&since=\(since)&wait=10s")
                let response = try await poll.response()
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["from"]?.stringValue == since)
                let patch = try JSONPatch(parsing: try #require(body["views"]?["quote"]?["patch"]))
                let quote = try patch.apply(to: try #require(loading["views"]?["quote"]))
                #expect(quote["loading"] == false)
                #expect(quote["text"]?.stringValue?.isEmpty == false)
                let current = try await api.read(session, query: "?views=quote")
                #expect(try current.json()["views"]?["quote"] == quote)
            }
        }

        /// How a client's `since` can be unusable.
        enum StaleCursor: String, CaseIterable, Sendable {
            case epoch, ahead, expired
        }

        @Test(arguments: StaleCursor.allCases)
        func anUnusableSinceAnswersAResetWithFullViews(_ stale: StaleCursor) async throws {
            var store = StoreConfiguration()
            store.historyLimit = 2
            try await withTestServer(TestApp.definition(configuration: store)) { server in
                let api = try server.client()
                let session = try await api.createSession()
                for value in 1...5 {
                    _ = try await api.dispatch(session, TestActions.set(Int64(value)))
                }
                let since =
                    switch stale {
                    case .epoch: "0123456789abcdef.3"
                    case .ahead: session.cursor(9)
                    case .expired: session.version
                    }
                let response = try await api.poll(session, query: "?views=counter&since=\(since)&wait=10s")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["reset"] == true)
                #expect(body["reason"]?.stringValue == stale.rawValue)
                #expect(body["to"]?.stringValue == session.cursor(5))
                #expect(body["views"] == ["counter": ["full": ["counter": "5"]]])
            }
        }

        @Test func aSinceWithinTheHistoryIsContinuedNotReset() async throws {
            var store = StoreConfiguration()
            store.historyLimit = 2
            try await withTestServer(TestApp.definition(configuration: store)) { server in
                let api = try server.client()
                let session = try await api.createSession()
                for value in 1...5 {
                    _ = try await api.dispatch(session, TestActions.set(Int64(value)))
                }
                let response = try await api.poll(session, query: "?views=counter&since=\(session.cursor(4))")
                let body = try response.json()
                #expect(body["reset"] == nil)
                #expect(body["from"]?.stringValue == session.cursor(4))
                #expect(body["views"] == ["counter": ["full": ["counter": "5"]]])
            }
        }

        /// A `patch` answer writes a view whole when its JSON is no longer than the shortest patch could be, and
        /// patches the others: both forms in one answer, which together bring the client's views up to date.
        @Test func smallViewsComeWholeAndLargerOnesAsPatches() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.increase)
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                let response = try await api.poll(session, query: "?views=counter,login&since=\(session.version)")
                #expect(response.status == 200)
                let views = try #require(try response.json()["views"])
                #expect(views["counter"] == ["full": ["counter": "1"]])
                let patch = try JSONPatch(parsing: try #require(views["login"]?["patch"]))
                #expect(
                    try patch.apply(to: try #require(session.views["login"]))
                        == ["firstName": "Ada", "lastName": "Lovelace", "loggedIn": true])
            }
        }

        @Test(arguments: [
            ("?since=garbage", "bad-cursor"), ("?since=abc.def", "bad-cursor"), ("?views=nope", "unknown-view"),
            ("?wait=forever", "bad-wait"), ("?wait=-1s", "bad-wait"), ("?format=xml", "bad-format"),
        ])
        func aBadParameterIs400(query: String, slug: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.poll(session, query: query)
                #expect(response.status == 400)
                #expect(try response.json()["type"]?.stringValue == "/problems/\(slug)")
            }
        }

        @Test func tooManyParkedPollsForOneSessionIs429() async throws {
            try await withTestServer(configure: { $0.maxPollsPerSession = 2 }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let query = "?since=\(session.version)&wait=10s"
                let first = try await api.startPoll(session, query: query)
                let second = try await api.startPoll(session, query: query)
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 2 })
                let third = try await api.poll(session, query: query)
                #expect(third.status == 429)
                #expect(third.header("Retry-After") == "1")
                #expect(try third.json()["type"] == "/problems/too-many-waiters")
                // Another session is not limited by this one's polls.
                let other = try await api.createSession()
                let otherPoll = try await api.startPoll(other, query: "?since=\(other.version)&wait=10s")
                _ = try await api.dispatch(session, TestActions.increase)
                _ = try await api.dispatch(other, TestActions.increase)
                for pending in [first, second, otherPoll] {
                    #expect(try await pending.response().status == 200)
                }
            }
        }

        @Test func deletingTheSessionAnswersItsParkedPollWith404() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let poll = try await api.startPoll(session, query: "?since=\(session.version)&wait=10s")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                #expect(try await api.delete(session).status == 204)
                let response = try await poll.response()
                #expect(response.status == 404)
                #expect(try response.json()["type"] == "/problems/session-not-found")
                #expect(poll.sentAt.duration(to: response.receivedAt) < .seconds(5))
                #expect(try await api.gauge("remvvm_parked_polls") == 0)
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}
