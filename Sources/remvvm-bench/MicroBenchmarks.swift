import ExampleApp
import Foundation
import ReMVVM

/// The two per-request JSON costs of a dispatch answer on their own, so a change to either shows up in
/// nanoseconds rather than drowned in a whole dispatch:
///   swift run -c release remvvm-bench 1000000 micro
/// - "micro: encode counter view": what `ViewSnapshot.jsonBytes()` does for `{"counter":"5"}` (the byte
///   encoder, reached through `any ViewModel` as the snapshot reaches it);
/// - "micro: decode counter/increase": `ActionRegistry.decodeActions(from:)` for `{"type":"counter/increase"}`,
///   the body of nearly every dispatch.
func runMicroBenchmarks(iterations: Int) throws {
    let viewModel: any ViewModel = CounterViewModel(5)
    _ = try Benchmark(name: "micro: encode counter view", iterations: iterations).run { count in
        for _ in 0..<count { _ = try JSONValue.serializedEncoding(of: viewModel) }
    }
    let registry = ExampleApp.definition().actions
    let body = Array(#"{"type":"counter/increase"}"#.utf8)
    _ = try Benchmark(name: "micro: decode counter/increase", iterations: iterations).run { count in
        for _ in 0..<count { _ = try registry.decodeActions(from: body) }
    }
}
