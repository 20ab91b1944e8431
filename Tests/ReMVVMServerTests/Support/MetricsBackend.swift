import CoreMetrics
import Prometheus
import ReMVVMServer

/// A Prometheus registry of the test's own and the factory recording into it, set up as the executable does it
/// (with the dispatch latency buckets): what a test hands the server and reads back.
struct MetricsBackend: Sendable {
    let registry = PrometheusCollectorRegistry()
    let factory: PrometheusMetricsFactory

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[ServerConfiguration.dispatchLatencyMetric] =
            ServerConfiguration.dispatchLatencyBuckets
        self.factory = factory
    }

    /// The registry's exposition text.
    var text: String { registry.emitToString() }

    /// Makes `configuration` record into this registry and serve it at `/metrics` on the API port.
    func serve(in configuration: inout ServerConfiguration) {
        configuration.metricsFactory = factory
        configuration.metricsExposition = { [registry] in registry.emitToBuffer() }
    }
}
