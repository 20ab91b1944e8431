import Foundation

/// What the upgrade gate found for every session it rebuilt: a summary, and a verdict for each session that
/// stops the deploy.
public struct UpgradeReport: Sendable, Equatable, Codable {
    /// Whether the deploy may go ahead: no session divergent or undecodable.
    public private(set) var passed = true
    /// Sessions stored.
    public var stored: Int
    /// Sessions rebuilt (all of them, or the sample).
    public var checked: Int
    /// Sessions whose replay reached their latest snapshot's digest.
    public var matched: Int
    /// Sessions rebuilt with nothing recorded to compare with.
    public var unchecked: Int
    /// Sessions whose replay reached another state.
    public var divergent: Int
    /// Sessions this build cannot read.
    public var undecodable: Int
    /// Log entries replayed, over every session.
    public var replayed: Int
    /// Seconds the gate took.
    public var seconds: Double
    /// The divergent and undecodable sessions, in the order they are stored (oldest first).
    public var failures: [SessionVerdict]

    /// An empty report of `stored` sessions.
    public init(stored: Int) {
        self.stored = stored
        checked = 0
        matched = 0
        unchecked = 0
        divergent = 0
        undecodable = 0
        replayed = 0
        seconds = 0
        failures = []
    }

    /// Counts `verdict` in.
    public mutating func add(_ verdict: SessionVerdict) {
        checked += 1
        replayed += verdict.replayed
        switch verdict.outcome {
        case .matched: matched += 1
        case .unchecked: unchecked += 1
        case .divergent: divergent += 1
        case .undecodable: undecodable += 1
        }
        if verdict.fails {
            failures.append(verdict)
            passed = false
        }
    }

    /// The summary line and one line per failing session, for a person.
    public var text: String {
        var lines = [
            "\(passed ? "passed" : "FAILED"): \(checked) of \(stored) sessions rebuilt, \(replayed) log entries "
                + "replayed in \(String(format: "%.2f", seconds)) s: \(matched) matched, \(unchecked) unchecked, "
                + "\(divergent) divergent, \(undecodable) undecodable"
        ]
        for failure in failures {
            var line = "\(failure.outcome.rawValue) session \(failure.session)"
            if let version = failure.version {
                line += ": first at version \(version)"
                if let action = failure.action { line += " ('\(action)')" }
            }
            if let detail = failure.detail { line += ": \(detail)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON (keys sorted), for machines.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Numbers, strings and arrays of them: encoding cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
