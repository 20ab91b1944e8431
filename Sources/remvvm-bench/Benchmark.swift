import Foundation

/// Times `iterations` runs of a body and reports operations per second.
struct Benchmark {
    let name: String
    let iterations: Int

    /// Runs the body once to warm up, then `repetitions` timed rounds; reports the best round.
    func run(repetitions: Int = 5, _ body: (Int) throws -> Void) rethrows -> Double {
        if let filter = scenarioFilter, !name.contains(filter) { return 0 }
        try body(min(iterations, 10_000))
        var best = Double.infinity
        for _ in 0..<repetitions {
            let start = ContinuousClock.now
            try body(iterations)
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        let rate = Double(iterations) / best
        let nanos = best / Double(iterations) * 1e9
        print(row(name, String(format: "%.0f", rate), String(format: "%.1f", nanos)))
        return rate
    }

    func row(_ columns: String...) -> String {
        zip(columns, [52, 14, 10]).map { text, width in
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }.joined(separator: " ")
    }
}

/// Only scenarios whose name contains this run (the second command-line argument).
let scenarioFilter = CommandLine.arguments.dropFirst(2).first
