import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Server-Sent Events over HTTP")
    struct EventStreamTests {
        @Test func aStreamStartsWithRetryAndASnapshotThenSendsOnePatchPerChange() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (head, stream) = try await api.openEvents(session, query: "?views=counter,login")
                defer { stream.close() }
                #expect(head.status == 200)
                #expect(head.header("Content-Type") == "text/event-stream")
                #expect(head.header("Cache-Control") == "no-store")
                let opening = try #require(try await stream.nextEventBlock())
                let retry = try #require(opening.retry)
                #expect((2_000...3_000).contains(retry))
                let snapshot = try #require(try await stream.nextEvent())
                #expect(snapshot.event == "snapshot")
                #expect(snapshot.id == session.version)
                let snapshotBody = try snapshot.json()
                #expect(snapshotBody["version"]?.stringValue == session.version)
                var views = try #require(snapshotBody["views"])
                #expect(views.members.keys.sorted() == ["counter", "login"])

                let changes = [TestActions.increase, TestActions.login("Ada", "Lovelace"), TestActions.set(41)]
                for change in changes {
                    _ = try await api.dispatch(session, change)
                }
                for number in 1...3 {
                    let event = try #require(try await stream.nextEvent())
                    #expect(event.event == "patch")
                    #expect(event.id == session.cursor(UInt64(number)))
                    let body = try event.json()
                    #expect(body["from"]?.stringValue == session.cursor(UInt64(number - 1)))
                    #expect(body["to"]?.stringValue == event.id)
                    views = try Self.apply(body, to: views)
                }
                let current = try await api.read(session, query: "?views=counter,login")
                #expect(try current.json()["views"] == views)
                #expect(views["counter"] == ["counter": "41"])
            }
        }

        @Test func aChangeToAnUnwatchedViewSendsNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, stream) = try await api.openEvents(session, query: "?views=counter")
                defer { stream.close() }
                #expect(try await stream.nextEvent()?.event == "snapshot")
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                _ = try await api.dispatch(session, TestActions.increase)
                let event = try #require(try await stream.nextEvent())
                #expect(event.id == session.cursor(2))
                let body = try event.json()
                #expect(body["from"]?.stringValue == session.version)
                #expect(body["views"]?.members.keys.sorted() == ["counter"])
            }
        }

        @Test func resumingWithLastEventIDDeliversExactlyTheMissedChanges() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, first) = try await api.openEvents(session)
                let snapshot = try #require(try await first.nextEvent())
                var views = try #require(try snapshot.json()["views"])
                _ = try await api.dispatch(session, TestActions.increase)
                _ = try await api.dispatch(session, TestActions.increase)
                var lastID = snapshot.id
                for _ in 0..<2 {
                    let event = try #require(try await first.nextEvent())
                    views = try Self.apply(try event.json(), to: views)
                    lastID = event.id
                }
                first.close()
                #expect(lastID == session.cursor(2))

                // Missed while disconnected: a counter change, a login and a navigation.
                _ = try await api.dispatch(session, TestActions.set(10))
                _ = try await api.dispatch(session, TestActions.login("Ada", "Lovelace"))
                _ = try await api.dispatch(session, ["type": "profile/show"])

                let (head, second) = try await api.openEvents(session, headers: [("Last-Event-ID", lastID ?? "")])
                defer { second.close() }
                #expect(head.status == 200)
                let missed = try #require(try await second.nextEvent())
                #expect(missed.event == "patch")
                #expect(missed.id == session.cursor(5))
                let body = try missed.json()
                #expect(body["from"]?.stringValue == lastID)
                #expect(body["views"]?.members.keys.sorted() == ["counter", "greeting", "login", "navigation"])
                views = try Self.apply(body, to: views)
                let current = try await api.read(session)
                #expect(try current.json()["views"] == views)
                // Nothing else was pending: the next event is the next change.
                _ = try await api.dispatch(session, TestActions.increase)
                let next = try #require(try await second.nextEvent())
                #expect(next.id == session.cursor(6))
                #expect(try next.json()["from"]?.stringValue == session.cursor(5))
            }
        }

        @Test func sinceInTheQueryResumesLikeLastEventID() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.increase)
                let (_, stream) = try await api.openEvents(session, query: "?views=counter&since=\(session.version)")
                defer { stream.close() }
                let event = try #require(try await stream.nextEvent())
                #expect(event.event == "patch")
                #expect(event.id == session.cursor(1))
            }
        }

        @Test func anUnusableLastEventIDGetsAResetEvent() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, stream) = try await api.openEvents(
                    session, query: "?views=counter", headers: [("Last-Event-ID", "0123456789abcdef.1")])
                defer { stream.close() }
                let event = try #require(try await stream.nextEvent())
                #expect(event.event == "reset")
                #expect(event.id == session.version)
                let body = try event.json()
                #expect(body["reason"] == "epoch")
                #expect(body["views"] == ["counter": ["full": ["counter": "0"]]])
            }
        }

        @Test func idleStreamsGetHeartbeatComments() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock, configure: { $0.heartbeatInterval = .milliseconds(100) }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, stream) = try await api.openEvents(session)
                defer { stream.close() }
                #expect(try await stream.nextEvent()?.event == "snapshot")
                clock.advance(by: .milliseconds(100))  // The first heartbeat is due.
                let heartbeat = try #require(try await stream.nextEventBlock())
                #expect(heartbeat.comments == ["hb"])
                #expect(!heartbeat.hasData)
            }
        }

        @Test func deletingTheSessionEndsItsStreamWithAnEndEvent() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, stream) = try await api.openEvents(session)
                defer { stream.close() }
                #expect(try await stream.nextEvent()?.event == "snapshot")
                #expect(try await api.delete(session).status == 204)
                let end = try #require(try await stream.nextEvent())
                #expect(end.event == "end")
                #expect(try end.json()["reason"] == "deleted")
                #expect(try await stream.nextEventBlock() == nil)
            }
        }

        @Test func aGoneSessionOrAWrongTokenGets204() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (wrong, first) = try await api.openEvents(
                    TestSession(
                        id: session.id, token: "nope", version: session.version, views: session.views,
                        response: session.response))
                first.close()
                #expect(wrong.status == 204)
                #expect(try await api.delete(session).status == 204)
                let (gone, second) = try await api.openEvents(session)
                second.close()
                #expect(gone.status == 204)
            }
        }

        @Test(arguments: [("?views=nope", "unknown-view"), ("?since=garbage", "bad-cursor")])
        func aBadParameterIs400(query: String, slug: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (head, stream) = try await api.openEvents(session, query: query)
                stream.close()
                #expect(head.status == 400)
                #expect(try head.json()["type"]?.stringValue == "/problems/\(slug)")
            }
        }

        @Test func tooManyStreamsForOneSessionIs429() async throws {
            try await withTestServer(configure: { $0.maxStreamsPerSession = 1 }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let (_, first) = try await api.openEvents(session)
                #expect(try await first.nextEvent()?.event == "snapshot")
                let (refused, second) = try await api.openEvents(session)
                second.close()
                #expect(refused.status == 429)
                #expect(refused.header("Retry-After") == "1")
                first.close()
                // The slot is freed once the server notices the client left.
                #expect(
                    try await eventually {
                        let (head, stream) = try await api.openEvents(session)
                        stream.close()
                        return head.status == 200
                    })
            }
        }

        /// Applies every view's patch (or replaces it with `full`) of a change answer to `views`.
        static func apply(_ answer: JSONValue, to views: JSONValue) throws -> JSONValue {
            var result = views.members
            for (name, change) in answer["views"]?.members ?? [:] {
                if let full = change["full"] {
                    result[name] = full
                } else {
                    let patch = try JSONPatch(parsing: try #require(change["patch"]))
                    result[name] = try patch.apply(to: try #require(result[name]))
                }
            }
            return .object(result)
        }
    }
}
