import MicroHTTP
import Prometheus
import ReMVVMServer

/// Serves `GET /metrics` (the Prometheus registry the server records into) on a listener of its own, so that only
/// operators reach it: bind it to an address the public cannot (`--metrics-host`, loopback by default) and let
/// Prometheus scrape that port. Everything else there is 404.
final class MetricsListener: HTTPHandler {
    private let server: StoreServer
    private let registry: PrometheusCollectorRegistry

    /// A listener for `server`'s metrics, recorded into `registry`.
    init(server: StoreServer, registry: PrometheusCollectorRegistry) {
        self.server = server
        self.registry = registry
    }

    func handle(_ request: consuming HTTPRequest, responder: Responder) {
        let path = request.path
        let method = request.method
        guard path == "/metrics" else {
            _ = responder.respond(HTTPResponse(status: 404, headers: ["Content-Type": "text/plain"]))
            return
        }
        guard method == "GET" || method == "HEAD" else {
            _ = responder.respond(HTTPResponse(status: 405, headers: ["Allow": "GET, HEAD"]))
            return
        }
        server.updateMetricGauges()
        _ = responder.respond(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: .bytes(registry.emitToBuffer())))
    }

    /// The registry and the factory that records into it, with the dispatch latency buckets the server uses.
    static func makeBackend() -> (PrometheusCollectorRegistry, PrometheusMetricsFactory) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[ServerConfiguration.dispatchLatencyMetric] =
            ServerConfiguration.dispatchLatencyBuckets
        return (registry, factory)
    }
}
