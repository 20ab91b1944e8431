import Foundation
import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Health, metrics and hostile input over HTTP")
    struct OperationsTests {
        @Test func healthzAnswers200WithTheSessionCount() async throws {
            try await withTestServer { server in
                let api = try server.client()
                _ = try await api.createSession()
                let response = try await api.request("GET", "/healthz")
                #expect(response.status == 200)
                #expect(try response.json() == ["status": "ok", "sessions": 1])
            }
        }

        @Test func metricsExposeRequestsSessionsParkedPollsAndDispatchLatency() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, TestActions.increase)
                let poll = try await api.startPoll(session, query: "?since=\(session.cursor(1))&wait=10s")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                let response = try await api.request("GET", "/metrics")
                #expect(response.status == 200)
                #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = response.text
                #expect(text.contains("# TYPE remvvm_http_requests_total counter"))
                #expect(text.contains(#"remvvm_http_requests_total{route="/v1/sessions",status="201"} 1"#))
                #expect(text.contains(#"remvvm_http_requests_total{route="/v1/sessions/{id}/actions",status="200"} 1"#))
                #expect(text.contains("\nremvvm_sessions 1.0\n"))
                #expect(text.contains("\nremvvm_parked_polls 1.0\n"))
                #expect(text.contains("# TYPE remvvm_dispatch_duration_seconds histogram"))
                #expect(text.contains(#"remvvm_dispatch_duration_seconds_bucket{le="+Inf"} 1"#))
                #expect(text.contains("remvvm_dispatch_duration_seconds_count 1\n"))
                #expect(!text.contains(session.id), "metrics must not name sessions")
                _ = try await api.dispatch(session, TestActions.increase)
                #expect(try await poll.response().status == 200)
                #expect(try await api.gauge("remvvm_parked_polls") == 0)
            }
        }

        @Test func anUnknownAPIRouteIs404() async throws {
            try await withTestServer { server in
                let api = try server.client()
                for path in ["/v1", "/v1/nope", "/v1/sessions/a/b/c", "/v1/sessions/a/unknown"] {
                    let response = try await api.request("GET", path)
                    #expect(response.status == 404, "\(path)")
                    #expect(try response.json()["type"] == "/problems/not-found")
                }
            }
        }

        @Test func theServerKeepsServingAfterABatchOfGarbage() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let session = try await api.createSession()
                var noise = SystemRandomNumberGenerator()
                let longHeaders = String(repeating: "X-Long: \(String(repeating: "b", count: 100))\r\n", count: 200)
                let garbage: [[UInt8]] = [
                    Array("GARBAGE\r\n\r\n".utf8),
                    Array("GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n".utf8),
                    Array("GET / HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
                    Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{".utf8),
                    Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
                    Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8),
                    Array("GET /\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                    Array("GET / HTTP/1.1\r\n\(longHeaders)\r\n".utf8),
                    [0, 0, 0, 0, 0xff, 0xfe, 13, 10, 13, 10],
                    (0..<4096).map { _ in UInt8.random(in: 0...255, using: &noise) },
                ]
                let port = server.port
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for bytes in garbage {
                        group.addTask {
                            try await onOwnThread {
                                let client = try TestHTTPClient(port: port, timeout: .seconds(1))
                                try? client.send(bytes)
                                // Long enough for libmicrohttpd to answer what it answers itself before the server
                                // stops (RELIABILITY.md); the rest waits for a body that never comes.
                                _ = client.waitForClose(timeout: .seconds(3))
                                client.close()
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                // Garbage through the API on a live session: answered with problems, nothing applied.
                let bodies: [[UInt8]] = [
                    [0xff, 0xfe], Array("{\"type\":".utf8), Array("[[[[[[[[".utf8), Array("null".utf8),
                ]
                for body in bodies {
                    let response = try await api.dispatch(session, body: body)
                    #expect((400..<500).contains(response.status))
                }
                let fresh = try server.client()
                #expect(try await fresh.request("GET", "/healthz").status == 200)
                let applied = try await fresh.dispatch(session, TestActions.increase, query: "?views=counter")
                #expect(applied.status == 200)
                #expect(try applied.json()["version"]?.stringValue == session.cursor(1))
                #expect(try await fresh.createSession().id != session.id)
            }
        }
    }
}
