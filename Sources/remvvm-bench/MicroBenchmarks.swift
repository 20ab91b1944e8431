import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// The two per-request JSON costs of a dispatch answer on their own, so a change to either shows up in
/// nanoseconds rather than drowned in a whole dispatch:
///   swift run -c release remvvm-bench 1000000 micro
/// - "micro: encode counter view": what `ViewSnapshot.jsonBytes()` does for `{"counter":"5"}` (the byte
///   encoder, reached through `any ViewModel` as the snapshot reaches it);
/// - "micro: decode counter/increase": `ActionRegistry.decodeActions(from:)` for `{"type":"counter/increase"}`,
///   the body of nearly every dispatch;
/// - "micro: counter view as a JSON tree": the view model as a `JSONValue` tree (what `ViewSnapshot.json()`
///   makes once per snapshot, for the session-state answer);
/// - "micro: counter patch, from the serialized views": a long-poll's patch for that view (`AnswerCache.patch`),
///   made from the two snapshots' JSON bytes (`JSONPatch.serializedDiff`).
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
    _ = try Benchmark(name: "micro: counter view as a JSON tree", iterations: iterations).run { count in
        for _ in 0..<count { _ = try JSONValue(encoding: viewModel) }
    }
    let oldBytes = try JSONValue.serializedEncoding(of: CounterViewModel(4))
    let newBytes = try JSONValue.serializedEncoding(of: viewModel)
    _ = Benchmark(name: "micro: counter patch, from the serialized views", iterations: iterations).run { count in
        for _ in 0..<count { _ = JSONPatch.serializedDiff(fromSerialized: oldBytes, to: newBytes) }
    }
}
