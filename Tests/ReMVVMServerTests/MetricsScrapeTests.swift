import CoreMetrics
import HTTPTestClient
import Prometheus
import ReMVVMJSON
import Synchronization
import Testing

@testable import ReMVVMServer

extension EndToEnd {
    /// `/metrics` through swift-metrics and a Prometheus registry: what it shows after requests, that a scrape
    /// never walks the sessions, and that the API port serves it only when told to.
    @Suite("Metrics scrapes")
    struct MetricsScrapeTests {
        @Test func aScrapeShowsRequestsRefusalsAndGaugesInValidPrometheusText() async throws {
            try await withTestServer(configure: {
                $0.maxPollsPerSession = 1
                $0.maxBodySize = 64
            }) { server in
                let api = try server.client()
                let session = try await api.createSession()
                _ = try await api.dispatch(session, ["type": "chat/join", "payload": ["room": "m", "name": "n"]])
                _ = try await api.dispatch(session, ["type": "chat/post", "payload": ["text": "hi"]])
                #expect(try await eventually { try await api.gauge("remvvm_topic_published_total") == 1 })
                #expect(try await eventually { try await api.gauge("remvvm_topic_delivered_total") == 1 })
                let increased = try await api.dispatch(session, TestActions.increase, query: "?views=counter")
                let version = try #require(increased.storeVersion)
                let poll = try await api.startPoll(session, query: "?since=\(version)&wait=10s")
                #expect(try await eventually { try await api.gauge("remvvm_parked_polls") == 1 })
                let refused = try await api.request(
                    "GET", "\(session.path)/poll?since=\(version)&wait=10s", headers: [session.bearer])
                #expect(refused.status == 429)
                // The transport's own refusal (it closes that connection), counted through its callback.
                let large = try await server.client().dispatch(session, body: Array(repeating: 0x20, count: 100))
                #expect(large.status == 413)

                let response = try await api.request("GET", "/metrics")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
                let samples = try PrometheusText.check(response.text)
                #expect(samples[#"remvvm_http_requests_total{route="/v1/sessions",status="201"}"#] == 1)
                #expect(samples[#"remvvm_http_requests_total{route="/v1/sessions/{id}/actions",status="200"}"#] == 3)
                #expect(samples[#"remvvm_http_requests_total{route="/v1/sessions/{id}/poll",status="429"}"#] == 1)
                #expect(samples[#"remvvm_refusals_total{reason="polls-per-session"}"#] == 1)
                #expect(samples[#"remvvm_refusals_total{reason="body-too-large"}"#] == 1)
                #expect(samples[#"remvvm_refusals_total{reason="session-limit"}"#] == 0)
                #expect(samples["remvvm_sessions"] == 1)
                #expect(samples["remvvm_parked_polls"] == 1)
                #expect(samples["remvvm_event_streams"] == 0)
                #expect(samples["remvvm_running_effects"] != nil)
                #expect(samples["remvvm_open_connections"].map { $0 >= 2 } == true)
                #expect(samples["remvvm_dispatch_duration_seconds_count"] == 3)
                #expect(samples[#"remvvm_dispatch_duration_seconds_bucket{le="1.0"}"#] == 3)
                #expect(samples["remvvm_topic_published_total"] == 1)
                #expect(samples["remvvm_storage_commits_total"] == 0, "no storage: nothing written")
                #expect(samples[#"remvvm_dispatch_duration_seconds_bucket{le="0.00005"}"#] != nil)
                #expect(response.text.contains("# TYPE remvvm_http_requests_total counter\n"))
                #expect(response.text.contains("# TYPE remvvm_dispatch_duration_seconds histogram\n"))
                #expect(!response.text.contains(session.id), "metrics must not name sessions")

                _ = try await api.dispatch(session, TestActions.increase)
                #expect(try await poll.response().status == 200)
                #expect(try await api.gauge("remvvm_parked_polls") == 0)
            }
        }

        /// The old scrape walked every session (to add up their running effects): 70 ms at 200,000 sessions,
        /// stalling the workers. Now it reads counts the server keeps; checked by structure, not by time.
        @Test func aScrapeNeverWalksTheSessionsAndTouchesTheRegistryAsOftenWithTwentyThousand() async throws {
            let backend = MetricsBackend()
            let counting = CountingMetricsFactory(base: backend.factory)
            try await withTestServer(configure: {
                $0.metricsFactory = counting
                $0.metricsExposition = { [registry = backend.registry] in registry.emitToBuffer() }
            }) { server in
                let api = try server.client()
                _ = try await api.createSession()
                _ = try await api.metrics()  // Every series a scrape shows now exists.
                let registry = server.server.api.sessions
                let walks = registry.walks.load(ordering: .relaxed)

                let few = try await api.metrics()
                let operationsWithOne = counting.operations { server.server.updateMetricGauges() }
                for _ in 0..<20_000 { #expect(registry.create() != nil) }
                let many = try await api.metrics()
                let operationsWithMany = counting.operations { server.server.updateMetricGauges() }

                #expect(registry.walks.load(ordering: .relaxed) == walks, "a scrape walked the sessions")
                #expect(operationsWithMany == operationsWithOne)
                #expect(operationsWithOne <= 16)
                let fewSamples = try PrometheusText.check(few)
                let manySamples = try PrometheusText.check(many)
                #expect(fewSamples["remvvm_sessions"] == 1)
                #expect(manySamples["remvvm_sessions"] == 20_001)
                #expect(Set(manySamples.keys) == Set(fewSamples.keys), "the exposition grew with the sessions")
            }
        }

        @Test func withoutAnExpositionTheAPIPortAnswersMetricsWith404() async throws {
            try await withTestServer(configure: { $0.metricsExposition = nil }) { server in
                let api = try server.client()
                let response = try await api.request("GET", "/metrics")
                #expect(response.status == 404)
                #expect(try response.json()["type"] == "/problems/not-found")
                #expect(try await api.request("GET", "/healthz").status == 200)
            }
        }
    }
}

/// A metrics backend that counts what is done to its handlers (increments, records) and hands everything on.
final class CountingMetricsFactory: MetricsFactory {
    private let base: any MetricsFactory
    private let tally = Tally()

    /// Counts what `base` is asked to do.
    init(base: any MetricsFactory) {
        self.base = base
    }

    /// How many handler operations `body` caused.
    func operations(during body: () -> Void) -> Int {
        let before = tally.count.load(ordering: .relaxed)
        body()
        return tally.count.load(ordering: .relaxed) - before
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        CountedCounter(base: base.makeCounter(label: label, dimensions: dimensions), tally: tally)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        CountedRecorder(
            base: base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate), tally: tally)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        CountedTimer(base: base.makeTimer(label: label, dimensions: dimensions), tally: tally)
    }

    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}

    private final class Tally: Sendable {
        let count = Atomic<Int>(0)

        func add() { count.add(1, ordering: .relaxed) }
    }

    private final class CountedCounter: CounterHandler {
        let base: any CounterHandler
        let tally: Tally

        init(base: any CounterHandler, tally: Tally) {
            self.base = base
            self.tally = tally
        }

        func increment(by amount: Int64) {
            tally.add()
            base.increment(by: amount)
        }

        func reset() { base.reset() }
    }

    private final class CountedRecorder: RecorderHandler {
        let base: any RecorderHandler
        let tally: Tally

        init(base: any RecorderHandler, tally: Tally) {
            self.base = base
            self.tally = tally
        }

        func record(_ value: Int64) {
            tally.add()
            base.record(value)
        }

        func record(_ value: Double) {
            tally.add()
            base.record(value)
        }
    }

    private final class CountedTimer: TimerHandler {
        let base: any TimerHandler
        let tally: Tally

        init(base: any TimerHandler, tally: Tally) {
            self.base = base
            self.tally = tally
        }

        func recordNanoseconds(_ duration: Int64) {
            tally.add()
            base.recordNanoseconds(duration)
        }
    }
}
