import CoreMetrics
import Testing

@testable import ReMVVMServer

/// The request counters, the dispatch histogram and the refusals, recorded through swift-metrics into a
/// Prometheus registry and read back as its exposition text.
@Suite("Server metrics")
struct ServerMetricsTests {
    @Test func answersAreCountedByRouteAndStatusIncludingUnusualOnes() throws {
        let backend = MetricsBackend()
        let metrics = ServerMetrics(routeLabels: ["/a", "/b"], factory: backend.factory)
        metrics.record(routeIndex: 0, status: 200)
        metrics.record(routeIndex: 0, status: 200, dispatchNanoseconds: 2_000_000)
        metrics.record(routeIndex: 1, status: 404)
        metrics.record(routeIndex: 1, status: 100)
        metrics.record(routeIndex: 1, status: 599)
        metrics.record(routeIndex: 1, status: 999)
        metrics.record(routeIndex: 7, status: 200)
        let text = backend.text
        #expect(text.contains(#"remvvm_http_requests_total{route="/a",status="200"} 2"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="404"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="100"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="599"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="/b",status="999"} 1"#))
        #expect(text.contains(#"remvvm_http_requests_total{route="?",status="200"} 1"#))
        #expect(text.contains("remvvm_dispatch_duration_seconds_count 1\n"))
        #expect(text.contains(#"remvvm_dispatch_duration_seconds_bucket{le="0.0025"} 1"#))
        #expect(text.contains(#"remvvm_dispatch_duration_seconds_bucket{le="0.001"} 0"#))
        try PrometheusText.check(text)
    }

    @Test func everyRefusalReasonIsCountedAndShowsZeroUntilItHappens() throws {
        let backend = MetricsBackend()
        let metrics = ServerMetrics(routeLabels: ["/a"], factory: backend.factory)
        metrics.refused(.sessionCreationRate)
        metrics.refused(.sessionCreationRate)
        metrics.refused(.streamBudget)
        let samples = try PrometheusText.check(backend.text)
        for reason in Refusal.allCases {
            let expected: Double =
                switch reason {
                case .sessionCreationRate: 2
                case .streamBudget: 1
                default: 0
                }
            #expect(samples[#"remvvm_refusals_total{reason="\#(reason.rawValue)"}"#] == expected, "\(reason)")
        }
        #expect(Set(Refusal.allCases.map(\.index)) == Set(Refusal.allCases.indices))
    }

    @Test func withoutAFactoryNothingIsRecordedAndNothingBreaks() {
        let metrics = ServerMetrics(routeLabels: ["/a"], factory: NOOPMetricsHandler.instance)
        metrics.record(routeIndex: 0, status: 200, dispatchNanoseconds: 1)
        metrics.refused(.viewBudget)
        metrics.gauges.sessions.record(3)
    }
}

/// A reader of the Prometheus text format (version 0.0.4), strict enough to catch what a scraper would refuse.
enum PrometheusText {
    struct FormatError: Error, CustomStringConvertible {
        let description: String
    }

    /// Checks every line of `text` and returns each sample's value by its name and labels as written: a
    /// `# TYPE` before the first sample of each family and at most once, well-formed names, labels and
    /// numbers, histogram buckets that never fall, and a `+Inf` bucket equal to `_count`.
    @discardableResult
    static func check(_ text: String) throws -> [String: Double] {
        guard text.hasSuffix("\n") else { throw FormatError(description: "the text must end with a line feed") }
        var typed: [String: String] = [:]
        var samples: [String: Double] = [:]
        var lastBucket: [String: Double] = [:]
        var counts: [String: Double] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, isName(parts[2]),
                    ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3])
                else { throw FormatError(description: "bad TYPE line: \(line)") }
                guard typed.updateValue(String(parts[3]), forKey: String(parts[2])) == nil else {
                    throw FormatError(description: "TYPE given twice: \(line)")
                }
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let space = line.lastIndex(of: " ") else { throw FormatError(description: "no value: \(line)") }
            let series = line[..<space]
            let valueText = line[line.index(after: space)...]
            guard let value = Double(valueText) ?? (valueText == "+Inf" ? .infinity : nil) else {
                throw FormatError(description: "bad value: \(line)")
            }
            let name = series.prefix { $0 != "{" }
            guard isName(name) else { throw FormatError(description: "bad name: \(line)") }
            if name.count < series.count {
                guard series.hasSuffix("}") else { throw FormatError(description: "bad labels: \(line)") }
                try checkLabels(series.dropFirst(name.count + 1).dropLast(), line: line)
            }
            let suffix = ["_bucket", "_sum", "_count"].first {
                name.hasSuffix($0) && typed[String(name.dropLast($0.count))] == "histogram"
            }
            let family = String(name.dropLast(suffix?.count ?? 0))
            guard typed[family] != nil else { throw FormatError(description: "sample before its TYPE: \(line)") }
            guard samples.updateValue(value, forKey: String(series)) == nil else {
                throw FormatError(description: "sample given twice: \(line)")
            }
            if name.hasSuffix("_bucket") {
                let others = String(series.replacing(/,?le="[^"]*"/, with: ""))
                guard value >= lastBucket[others, default: 0] else {
                    throw FormatError(description: "a bucket falls: \(line)")
                }
                lastBucket[others] = value
                if series.contains(#"le="+Inf""#) {
                    let count = others.replacing("_bucket{", with: "_count{").replacing("{}", with: "")
                    counts[count] = value
                }
            }
        }
        for (series, infinite) in counts where samples[series] != infinite {
            throw FormatError(description: "\(series) is not its +Inf bucket (\(infinite))")
        }
        return samples
    }

    private static func isName(_ name: Substring) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" || $0 == ":" }
    }

    private static func checkLabels(_ labels: Substring, line: Substring) throws {
        var rest = labels
        while !rest.isEmpty {
            let name = rest.prefix { $0 != "=" }
            guard isName(name), rest.dropFirst(name.count).hasPrefix("=\"") else {
                throw FormatError(description: "bad label: \(line)")
            }
            rest = rest.dropFirst(name.count + 2)
            var escaped = false
            var end: Substring.Index?
            for index in rest.indices {
                if escaped {
                    escaped = false
                } else if rest[index] == "\\" {
                    escaped = true
                } else if rest[index] == "\"" {
                    end = index
                    break
                }
            }
            guard let end else { throw FormatError(description: "unterminated label value: \(line)") }
            rest = rest[rest.index(after: end)...]
            if rest.hasPrefix(",") {
                rest = rest.dropFirst()
            } else if !rest.isEmpty {
                throw FormatError(description: "bad label list: \(line)")
            }
        }
    }
}
