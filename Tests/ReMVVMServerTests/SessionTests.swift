import ExampleApp
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Sessions over HTTP")
    struct SessionTests {
        @Test func createAnswers201WithLocationTokenCookieAndEveryView() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = session.response
                #expect(response.status == 201)
                #expect(response.header("Location") == "/v1/sessions/\(session.id)")
                #expect(response.header("Content-Type") == "application/json")
                #expect(response.storeVersion == session.version)
                #expect(response.header("ETag") == "\"\(session.version)\"")
                #expect(response.header("Cache-Control") == "no-store")
                let cookie = try #require(response.header("Set-Cookie"))
                #expect(cookie.hasPrefix("remvvm_token=\(session.token);"))
                #expect(cookie.contains("HttpOnly"))
                #expect(cookie.contains("SameSite=Strict"))
                #expect(session.id.count == 32)
                #expect(session.token.count == 32)
                #expect(session.id != session.token)
                #expect(
                    Set(session.views.members.keys) == ["chat", "counter", "greeting", "login", "navigation", "quote"])
                #expect(session.views["counter"] == ["counter": "0"])
            }
        }

        @Test func readAnswersTheNamedViewsWithTheVersionInBodyAndHeaders() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.read(session, query: "?views=counter,quote")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["version"]?.stringValue == session.version)
                #expect(response.storeVersion == session.version)
                #expect(response.header("ETag") == "\"\(session.version)\"")
                #expect(Set(try #require(body["views"]).members.keys) == ["counter", "quote"])
                let all = try await api.read(session)
                #expect(try all.json()["views"] == session.views)
                // One view alone, with blanks around its name.
                let one = try await api.read(session, query: "?views=%20counter%09")
                let oneViews = try one.json()["views"]?.members ?? [:]
                #expect(Set(oneViews.keys) == ["counter"])
            }
        }

        @Test func bearerReadGivesTheSessionCookieBackToABrowserThatLostIt() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.read(session)
                #expect(response.header("Set-Cookie")?.hasPrefix("remvvm_token=\(session.token);") == true)
            }
        }

        @Test func ifNoneMatchWithTheCurrentVersionIs304() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let current = "\"\(session.version)\""
                let unchanged = try await api.read(session, headers: [("If-None-Match", current)])
                #expect(unchanged.status == 304)
                #expect(unchanged.body.isEmpty)
                #expect(unchanged.header("ETag") == current)
                #expect(unchanged.storeVersion == session.version)
                _ = try await api.dispatch(session, TestActions.increase)
                let changed = try await api.read(session, headers: [("If-None-Match", current)])
                #expect(changed.status == 200)
                #expect(changed.header("ETag") == "\"\(session.cursor(1))\"")
                let list = "\(current), \"\(session.cursor(1))\""
                #expect(try await api.read(session, headers: [("If-None-Match", list)]).status == 304)
            }
        }

        @Test func unknownIdWrongTokenAndAMalformedAuthorizationGetTheSame404() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let unknownID = try await api.request(
                    "GET", "/v1/sessions/00000000000000000000000000000000", headers: [session.bearer])
                let wrongToken = try await api.request(
                    "GET", session.path, headers: [("Authorization", "Bearer \(String(repeating: "f", count: 32))")])
                let wrongCookie = try await api.request("GET", session.path, headers: [("Cookie", "remvvm_token=f00")])
                let notBearer = try await api.request("GET", session.path, headers: [("Authorization", "Basic abc")])
                for response in [unknownID, wrongToken, wrongCookie, notBearer] {
                    #expect(response.status == 404)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.body == unknownID.body)
                }
                let problem = try unknownID.json()
                #expect(problem["type"] == "/problems/session-not-found")
                #expect(problem["title"] == "Not Found")
                #expect(problem["status"] == 404)
                #expect(problem["detail"]?.stringValue?.isEmpty == false)
                for route in ["/actions", "/poll"] {
                    let response = try await api.request(
                        route == "/actions" ? "POST" : "GET", session.path + route,
                        headers: [("Authorization", "Bearer nope"), ("Content-Type", "application/json")],
                        body: Array(#"{"type":"counter/increase"}"#.utf8))
                    #expect(response.status == 404)
                }
            }
        }

        /// A request with no credentials at all is told how to authenticate, on every session route and whether
        /// the session exists or not (so it tells nothing about which do).
        @Test func noCredentialsAtAllGet401WithBearerOnEverySessionRoute() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let json = [("Content-Type", "application/json")]
                let body = TestActions.increase.serialized()
                for path in [session.path, "/v1/sessions/00000000000000000000000000000000", "/v1/sessions/nope"] {
                    for (method, route) in [
                        ("GET", ""), ("DELETE", ""), ("POST", "/actions"), ("GET", "/poll"), ("GET", "/events"),
                    ] {
                        let response = try await api.request(
                            method, path + route, headers: method == "POST" ? json : [],
                            body: method == "POST" ? body : [])
                        #expect(response.status == 401, "\(method) \(path)\(route)")
                        #expect(response.header("WWW-Authenticate") == "Bearer")
                        let problem = try response.json()
                        #expect(problem["type"] == "/problems/missing-credentials")
                        #expect(problem["detail"]?.stringValue?.contains("Authorization: Bearer <token>") == true)
                    }
                }
                let after = try await api.read(session)
                #expect(after.status == 200)
                #expect(try after.json()["version"]?.stringValue == session.version)
            }
        }

        @Test func anotherSessionsTokenGets404AndChangesNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let mine = try await api.createSession()
                let theirs = try await api.createSession()
                let foreign = [("Authorization", "Bearer \(theirs.token)")]
                let read = try await api.request("GET", mine.path, headers: foreign)
                let write = try await api.request(
                    "POST", mine.path + "/actions", headers: foreign + [("Content-Type", "application/json")],
                    body: TestActions.increase.serialized())
                let delete = try await api.request("DELETE", mine.path, headers: foreign)
                #expect([read.status, write.status, delete.status] == [404, 404, 404])
                let after = try await api.read(mine)
                #expect(after.status == 200)
                #expect(try after.json()["version"]?.stringValue == mine.version)
                #expect(try after.json()["views"] == mine.views)
                #expect(try await api.read(theirs).status == 200)
            }
        }

        @Test func deleteAnswers204AndTheSessionIsGone() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let deleted = try await api.delete(session)
                #expect(deleted.status == 204)
                #expect(deleted.body.isEmpty)
                #expect(try await api.read(session).status == 404)
                #expect(try await api.delete(session).status == 404)
                #expect(try await api.dispatch(session, TestActions.increase).status == 404)
                let (events, stream) = try await api.openEvents(session)
                defer { stream.close() }
                #expect(events.status == 204)
                #expect(server.server.sessionCount == 0)
            }
        }

        @Test func deletingASessionCancelsItsRunningEffects() async throws {
            let quotes = HangingQuoteService()
            let definition = ExampleApp.definition(services: Services().with(QuoteServiceKey.self, quotes))
            try await withTestServer(definition) { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(try await api.dispatch(session, TestActions.loadQuote).status == 200)
                #expect(await eventually { quotes.started == 1 })
                #expect(try await api.gauge("remvvm_running_effects") == 1)
                #expect(try await api.delete(session).status == 204)
                #expect(await eventually { quotes.cancelled == 1 })
            }
        }

        @Test func methodsARouteDoesNotHaveGet405WithAllow() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let cases: [(method: String, path: String, allow: String)] = [
                    ("GET", "/v1/sessions", "POST"),
                    ("PUT", session.path, "GET, DELETE"),
                    ("GET", session.path + "/actions", "POST"),
                    ("POST", session.path + "/poll", "GET"),
                    ("DELETE", session.path + "/events", "GET"),
                    ("POST", "/index.html", "GET, HEAD"),
                    ("POST", "/healthz", "GET, HEAD"),
                    ("TRACE", "/metrics", "GET, HEAD"),
                ]
                for (method, path, allow) in cases {
                    let response = try await api.request(method, path, headers: [session.bearer])
                    #expect(response.status == 405, "\(method) \(path)")
                    #expect(response.header("Allow") == allow, "\(method) \(path)")
                    #expect(try response.json()["type"] == "/problems/method-not-allowed")
                }
            }
        }

        @Test func theSessionLimitAnswers503WithRetryAfter() async throws {
            try await withTestServer(configure: { $0.maxSessions = 2 }) { server in
                let api = try server.client()
                _ = try await api.createSession()
                let second = try await api.createSession()
                let refused = try await api.request("POST", "/v1/sessions")
                #expect(refused.status == 503)
                #expect(refused.header("Retry-After") == "5")
                #expect(try refused.json()["type"] == "/problems/unavailable")
                #expect(try await api.delete(second).status == 204)
                #expect(try await api.request("POST", "/v1/sessions").status == 201)
            }
        }

        @Test func idleSessionsExpireAfterTheTTL() async throws {
            let clock = ManualServerClock()
            try await withTestServer(clock: clock, configure: { $0.sessionTTL = .milliseconds(100) }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                #expect(server.server.sessionCount == 1)
                // The housekeeper looks for idle sessions once a second of its clock; reading would keep the
                // session alive. A minute, not two seconds: the clock starts at the whole second before the
                // server does, and a busy machine can take longer than that to start it and create the session.
                clock.advance(by: .seconds(60))
                #expect(await eventually { server.server.sessionCount == 0 })
                #expect(try await api.read(session).status == 404)
            }
        }

        /// In a list or alone (which the server reads without making a list).
        @Test(arguments: ["?views=counter,nope", "?views=nope"])
        func anUnknownViewIs400NamingTheKnownViews(query: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.read(session, query: query)
                #expect(response.status == 400)
                let problem = try response.json()
                #expect(problem["type"] == "/problems/unknown-view")
                #expect(problem["detail"]?.stringValue?.contains("'nope'") == true)
                #expect(problem["detail"]?.stringValue?.contains("counter") == true)
            }
        }
    }
}
