import ExampleApp
import Foundation
import ReMVVM
import ReMVVMJSON

/// The two per-request JSON costs of a dispatch answer on their own, so a change to either shows up in
/// nanoseconds rather than drowned in a whole dispatch:
///   swift run -c release remvvm-bench 1000000 micro
/// - "micro: encode counter view": what `ViewSnapshot.jsonBytes()` does for `{"counter":"5"}` (the byte
///   encoder, reached through `any ViewModel` as the snapshot reaches it);
/// - "micro: decode counter/increase": `ActionRegistry.decodeActions(from:)` for `{"type":"counter/increase"}`,
///   the body of nearly every dispatch;
/// - the three steps of a long-poll's patch for that view (`AnswerCache.patch`): the new view model as a
///   `JSONValue` tree (what `ViewSnapshot.json()` makes once per snapshot), the RFC 6902 diff of two trees,
///   and the patch written as bytes: the path it takes when a snapshot's bytes cannot be read directly;
/// - "micro: counter patch, from the serialized views": the same patch made from the two snapshots' JSON
///   bytes (`JSONPatch.serializedDiff`), the path it takes otherwise.
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
    let old = try JSONValue(encoding: CounterViewModel(4))
    let new = try JSONValue(encoding: viewModel)
    _ = Benchmark(name: "micro: counter patch, diff of two trees", iterations: iterations).run { count in
        for _ in 0..<count { _ = JSONPatch.diff(from: old, to: new) }
    }
    let patch = JSONPatch.diff(from: old, to: new)
    _ = Benchmark(name: "micro: counter patch, written as bytes", iterations: iterations).run { count in
        for _ in 0..<count { _ = patch.serialized() }
    }
    let oldBytes = old.serialized()
    let newBytes = new.serialized()
    _ = Benchmark(name: "micro: counter patch, from the serialized views", iterations: iterations).run { count in
        for _ in 0..<count { _ = JSONPatch.serializedDiff(fromSerialized: oldBytes, to: newBytes) }
    }
}
