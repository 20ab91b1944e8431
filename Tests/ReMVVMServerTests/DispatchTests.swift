import HTTPTestClient
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Dispatching actions over HTTP")
    struct DispatchTests {
        @Test func anActionIsAppliedAndAnsweredWithTheNewVersionAndViews() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, TestActions.increase, query: "?views=counter")
                #expect(response.status == 200)
                let body = try response.json()
                let version = session.cursor(1)
                #expect(body["version"]?.stringValue == version)
                #expect(response.storeVersion == version)
                #expect(response.header("ETag") == "\"\(version)\"")
                #expect(body["results"] == ["applied"])
                #expect(body["views"] == ["counter": ["counter": "1"]])
            }
        }

        @Test func aBlockedActionIsReportedAndChangesNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, TestActions.login("", "Lovelace"), query: "?views=login")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["version"]?.stringValue == session.version)
                let result = try #require(body["results"]?[0])
                #expect(result["blocked"]?.stringValue?.contains("required") == true)
                #expect(body["views"]?["login"]?["loggedIn"] == false)
            }
        }

        @Test func aBatchIsReducedInOrderAndCommittedAsOneVersion() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let batch: JSONValue = [
                    TestActions.increase, TestActions.set(10), TestActions.increase, TestActions.login("", ""),
                ]
                let response = try await api.dispatch(session, batch, query: "?views=counter")
                #expect(response.status == 200)
                let body = try response.json()
                #expect(body["version"]?.stringValue == session.cursor(1))
                #expect(body["results"]?.elements.count == 4)
                #expect(body["results"]?[0] == "applied")
                #expect(body["results"]?[2] == "applied")
                #expect(body["results"]?[3]?["blocked"] != nil)
                #expect(body["views"]?["counter"] == ["counter": "11"])
            }
        }

        @Test func aBatchWithAnInvalidActionAppliesNone() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let batch: JSONValue = [TestActions.increase, ["type": "counter/explode"], TestActions.increase]
                let response = try await api.dispatch(session, batch)
                #expect(response.status == 422)
                let problem = try response.json()
                #expect(problem["index"] == 1)
                #expect(problem["actionType"] == "counter/explode")
                let after = try await api.read(session, query: "?views=counter")
                #expect(try after.json()["version"]?.stringValue == session.version)
                #expect(try after.json()["views"]?["counter"] == ["counter": "0"])
            }
        }

        @Test(arguments: ["{", "not json", #"{"type": "counter/increase""#, "[1,", ""])
        func malformedJSONIs400(body: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, body: Array(body.utf8))
                #expect(response.status == 400)
                #expect(response.header("Content-Type") == "application/problem+json")
                let problem = try response.json()
                #expect(problem["type"] == "/problems/malformed-json")
                #expect(problem["status"] == 400)
            }
        }

        @Test func aBodyInAnotherMediaTypeIs415() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let body = TestActions.increase.serialized()
                let plain = try await api.dispatch(session, body: body, headers: [("Content-Type", "text/plain")])
                let form = try await api.dispatch(
                    session, body: body, headers: [("Content-Type", "application/x-www-form-urlencoded")])
                let missing = try await api.request(
                    "POST", session.path + "/actions", headers: [session.bearer], body: body)
                for response in [plain, form, missing] {
                    #expect(response.status == 415)
                    #expect(try response.json()["type"] == "/problems/unsupported-media-type")
                }
                let withCharset = try await api.dispatch(
                    session, body: body, headers: [("Content-Type", "Application/JSON; charset=utf-8")])
                #expect(withCharset.status == 200)
            }
        }

        @Test func aBodyOverTheLimitIs413AndAppliesNothing() async throws {
            try await withTestServer(configure: { $0.maxBodySize = 256 }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let batch = JSONValue.array(Array(repeating: TestActions.increase, count: 20))
                #expect(batch.serialized().count > 256)
                let response = try await api.dispatch(session, batch)
                #expect(response.status == 413)
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(try response.json()["status"] == 413)
                let fresh = try server.client()
                #expect(try await fresh.read(session).json()["version"]?.stringValue == session.version)
            }
        }

        @Test func anActionWhoseHeadLeavesNoRoomForItsAnswerIs431AndAppliesNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                // Within the default connection memory, but leaving the answer too little of it.
                let memory = HTTPServerConfiguration.defaultConnectionMemoryLimit
                let padding = ("X-Padding", String(repeating: "p", count: memory - 1_400))
                let response = try await api.dispatch(session, TestActions.increase, headers: [padding])
                #expect(response.status == 431)
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(try response.json()["title"] == "Request Header Fields Too Large")
                let fresh = try server.client()
                #expect(try await fresh.read(session).json()["version"]?.stringValue == session.version)
            }
        }

        @Test func anUnknownActionTypeIs422NamingTheType() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, ["type": "counter/explode"])
                #expect(response.status == 422)
                let problem = try response.json()
                #expect(problem["type"] == "/problems/invalid-action")
                #expect(problem["title"] == "Unprocessable Content")
                #expect(problem["actionType"] == "counter/explode")
                #expect(problem["detail"]?.stringValue?.contains("counter/explode") == true)
            }
        }

        @Test(arguments: [
            (#"{"type": "counter/set", "payload": {"value": "ten"}}"#, "value"),
            (#"{"type": "counter/set", "payload": {}}"#, "value"),
            (#"{"type": "user/login", "payload": {"firstName": "Ada", "lastName": 7}}"#, "lastName"),
        ])
        func aBadPayloadIs422NamingTheField(body: String, field: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, body: Array(body.utf8))
                #expect(response.status == 422)
                let problem = try response.json()
                #expect(problem["field"]?.stringValue == field)
                #expect(problem["actionType"] != nil)
                #expect(problem["detail"]?.stringValue?.contains(field) == true)
            }
        }

        @Test func ifMatchWithTheCurrentVersionApplies() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(
                    session, TestActions.increase, headers: [("If-Match", "\"\(session.version)\"")])
                #expect(response.status == 200)
                #expect(try response.json()["version"]?.stringValue == session.cursor(1))
                // `*` matches any current version (RFC 9110), so it only requires that the session exists.
                let any = try await api.dispatch(session, TestActions.increase, headers: [("If-Match", "*")])
                #expect(any.status == 200)
                #expect(try any.json()["version"]?.stringValue == session.cursor(2))
            }
        }

        @Test func ifMatchWithAnOldVersionIs412WithTheCurrentVersion() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.increase)
                for stale in ["\"\(session.version)\"", "\"otherepoch.1\""] {
                    let response = try await api.dispatch(session, TestActions.increase, headers: [("If-Match", stale)])
                    #expect(response.status == 412)
                    let problem = try response.json()
                    #expect(problem["type"] == "/problems/version-mismatch")
                    #expect(problem["currentVersion"]?.stringValue == session.cursor(1))
                    #expect(response.storeVersion == session.cursor(1))
                    #expect(response.header("ETag") == "\"\(session.cursor(1))\"")
                }
                let after = try await api.read(session, query: "?views=counter")
                #expect(try after.json()["views"]?["counter"] == ["counter": "1"])
            }
        }

        @Test(arguments: ["nonsense", "\"\"", "\"abc\"", "\"a.1\", \"a.2\""])
        func aMalformedIfMatchIs400(header: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let response = try await api.dispatch(session, TestActions.increase, headers: [("If-Match", header)])
                #expect(response.status == 400)
                #expect(try response.json()["type"] == "/problems/bad-if-match")
            }
        }

        @Test func aRetryWithTheSameIdempotencyKeyReplaysTheAnswerAndAppliesNothing() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let key = ("Idempotency-Key", "retry-1")
                let first = try await api.dispatch(session, TestActions.increase, headers: [key])
                let retry = try await api.dispatch(session, TestActions.increase, headers: [key])
                #expect(first.status == 200)
                #expect(retry.status == 200)
                #expect(retry.body == first.body)
                #expect(retry.storeVersion == first.storeVersion)
                let other = try await api.dispatch(
                    session, TestActions.increase, headers: [("Idempotency-Key", "retry-2")])
                #expect(try other.json()["views"]?["counter"] == ["counter": "2"])
            }
        }

        @Test func anIdempotencyKeyReusedWithAnotherBodyIs422() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let key = ("Idempotency-Key", "reused")
                #expect(try await api.dispatch(session, TestActions.increase, headers: [key]).status == 200)
                let response = try await api.dispatch(session, TestActions.decrease, headers: [key])
                #expect(response.status == 422)
                #expect(try response.json()["type"] == "/problems/idempotency-key-reused")
                let after = try await api.read(session, query: "?views=counter")
                #expect(try after.json()["views"]?["counter"] == ["counter": "1"])
            }
        }

        @Test func anIdempotencyKeyWhoseFirstRequestIsStillRunningIs409() async throws {
            let gate = Gate()
            try await withTestServer(TestApp.holdingDefinition(gate: gate)) { server in
                let api = try server.client()
                let session = try await api.createSession()
                let key = ("Idempotency-Key", "slow")
                let headers = [session.bearer, key, ("Content-Type", "application/json")]
                let body = JSONValue.array([TestActions.hold, TestActions.increase]).serialized()
                let first = try await api.start("POST", session.path + "/actions", headers: headers, body: body)
                #expect(await eventually { gate.arrived == 1 })
                let concurrent = try server.client()
                let retry = try await concurrent.dispatch(
                    session, body: body, headers: [key])
                #expect(retry.status == 409)
                #expect(try retry.json()["type"] == "/problems/idempotency-key-in-flight")
                let otherBody = try await concurrent.dispatch(session, TestActions.decrease, headers: [key])
                #expect(otherBody.status == 422)
                gate.open()
                let answer = try await first.response()
                #expect(answer.status == 200)
                #expect(try answer.json()["version"]?.stringValue == session.cursor(1))
                let replay = try await concurrent.dispatch(session, body: body, headers: [key])
                #expect(replay.status == 200)
                #expect(replay.body == answer.body)
                #expect(try await concurrent.read(session).json()["version"]?.stringValue == session.cursor(1))
            }
        }

        @Test func twoHundredConcurrentDispatchesFromTwentyThreadsEachApplyOnce() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let port = server.port
                let log = server.log
                let body = TestActions.increase.serialized()
                let versions = try await withThrowingTaskGroup(of: [String].self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            try await onOwnThread {
                                let client = try TestHTTPClient(port: port)
                                var versions: [String] = []
                                for _ in 0..<10 {
                                    let response = try client.request(
                                        "POST", session.path + "/actions",
                                        headers: [session.bearer, ("Content-Type", "application/json")], body: body)
                                    log.record(
                                        method: "POST", target: session.path + "/actions", status: response.status)
                                    guard response.status == 200, let version = response.storeVersion else {
                                        throw TestClientError(description: "dispatch answered \(response.status)")
                                    }
                                    versions.append(version)
                                }
                                return versions
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(versions.count == 200)
                #expect(Set(versions).count == 200)
                #expect(Set(versions) == Set((1...200).map { session.cursor(UInt64($0)) }))
                let after = try await api.read(session, query: "?views=counter")
                #expect(try after.json()["views"]?["counter"] == ["counter": "200"])
                #expect(try after.json()["version"]?.stringValue == session.cursor(200))
            }
        }

        @Test(arguments: [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site"), ("Origin", "null")])
        func aCrossSiteWriteWithTheCookieIs403(header: (String, String)) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let cookie = ("Cookie", "theme=dark; remvvm_token=\(session.token)")
                let write = try await api.request(
                    "POST", session.path + "/actions", headers: [cookie, header, ("Content-Type", "application/json")],
                    body: TestActions.increase.serialized())
                #expect(write.status == 403)
                #expect(try write.json()["type"] == "/problems/cross-site-request")
                let delete = try await api.request("DELETE", session.path, headers: [cookie, header])
                #expect(delete.status == 403)
                // Reads are harmless and allowed; the session is unchanged.
                let read = try await api.request("GET", session.path + "?views=counter", headers: [cookie, header])
                #expect(read.status == 200)
                #expect(try read.json()["views"]?["counter"] == ["counter": "0"])
            }
        }

        @Test func aSameOriginWriteWithTheCookieIsApplied() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                let host = "127.0.0.1:\(server.port)"
                let browser = [
                    ("Host", host), ("Origin", "http://\(host)"), ("Sec-Fetch-Site", "same-origin"),
                    ("Cookie", "remvvm_token=\(session.token)"), ("Content-Type", "application/json"),
                ]
                let write = try await api.request(
                    "POST", session.path + "/actions?views=counter", headers: browser,
                    body: TestActions.increase.serialized())
                #expect(write.status == 200)
                #expect(try write.json()["views"]?["counter"] == ["counter": "1"])
                let noOrigin = try await api.request(
                    "POST", session.path + "/actions",
                    headers: [("Cookie", "remvvm_token=\(session.token)")]
                        + [("Content-Type", "application/json")], body: TestActions.increase.serialized())
                #expect(noOrigin.status == 200)
            }
        }
    }
}
