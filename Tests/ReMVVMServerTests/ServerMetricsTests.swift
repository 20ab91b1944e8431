import Testing

@testable import ReMVVMServer

/// The request counters and the dispatch histogram, rendered as Prometheus text.
@Suite("Server metrics")
struct ServerMetricsTests {
    @Test func answersAreCountedByRouteAndStatusIncludingUnusualOnes() {
        let metrics = ServerMetrics(routeLabels: ["/a", "/b"])
        metrics.record(routeIndex: 0, status: 200)
        metrics.record(routeIndex: 0, status: 200, dispatchNanoseconds: 2_000_000)
        metrics.record(routeIndex: 1, status: 404)
        metrics.record(routeIndex: 1, status: 100)
        metrics.record(routeIndex: 1, status: 599)
        metrics.record(routeIndex: 1, status: 999)
        metrics.record(routeIndex: 7, status: 200)
        let text = metrics.render(gauges: [])
        #expect(text.contains(#"remvvm_http_requests_total{route="/a",status="200"} 2"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="404"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="100"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="599"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="999"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="?",status="200"} 1"#))
        #expect(text.contains("remvvm_dispatch_duration_seconds_count 1"))
        #expect(text.contains(#"remvvm_dispatch_duration_seconds_bucket{le="0.0025"} 1"#))
        #expect(text.contains(#"remvvm_dispatch_duration_seconds_bucket{le="0.001"} 0"#))
    }
}
