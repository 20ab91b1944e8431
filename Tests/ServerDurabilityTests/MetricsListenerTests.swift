import Foundation
import HTTPTestClient
import Testing

/// `--metrics-port` on the real `remvvm-server`: the metrics move to a listener of their own, and the API port
/// stops serving them; without it, the API port serves them as before.
@Suite(.serialized) final class MetricsListenerTests {
    let dataDirectory = temporaryPath("metrics")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test func withAMetricsPortOnlyThatListenerServesMetrics() async throws {
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--metrics-port", "0"])
        let metricsPort = try #require(Self.metricsPort(in: server.log), "no metrics line in:\n\(server.log)")
        #expect(metricsPort != server.port)
        let port = server.port
        try await onOwnThread {
            let client = try SessionClient(port: port)
            _ = try client.createSession()
            #expect(try client.http.request("GET", "/metrics").status == 404)
            #expect(try client.http.request("GET", "/healthz").status == 200)

            let operator_ = try SessionClient(port: metricsPort)
            let scrape = try operator_.http.request("GET", "/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            #expect(scrape.text.contains(#"remvvm_http_requests_total{route="/v1/sessions",status="201"} 1"#))
            #expect(scrape.text.contains(#"remvvm_http_requests_total{route="/metrics",status="404"} 1"#))
            #expect(scrape.text.contains("\nremvvm_sessions 1.0\n"))
            #expect(scrape.text.contains("# TYPE remvvm_refusals_total counter\n"))
            let transactions = scrape.text.split(separator: "\n")
                .first { $0.hasPrefix("remvvm_storage_transactions_total ") }
                .flatMap { Double($0.dropFirst("remvvm_storage_transactions_total ".count)) }
            #expect(transactions.map { $0 >= 1 } == true, "the session's creation was written")
            #expect(try operator_.http.request("GET", "/healthz").status == 404)
            #expect(try operator_.http.request("POST", "/metrics").status == 405)
        }
        #expect(try await server.stop() == 0)
    }

    @Test func withoutAMetricsPortTheAPIPortServesMetrics() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--durability", "off"])
        #expect(Self.metricsPort(in: server.log) == nil)
        let port = server.port
        try await onOwnThread {
            let client = try SessionClient(port: port)
            _ = try client.createSession()
            let scrape = try client.http.request("GET", "/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.text.contains(#"remvvm_http_requests_total{route="/v1/sessions",status="201"} 1"#))
            #expect(scrape.text.contains("\nremvvm_sessions 1.0\n"))
        }
        #expect(try await server.stop() == 0)
    }

    /// The port in the "metrics listening on http://127.0.0.1:PORT/metrics" line.
    private static func metricsPort(in log: String) -> UInt16? {
        guard let range = log.range(of: "metrics listening on http://127.0.0.1:") else { return nil }
        return UInt16(log[range.upperBound...].prefix { $0.isNumber })
    }
}
