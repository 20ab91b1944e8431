import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

// In-process dispatch throughput of the store core (release build):
//   swift run -c release remvvm-bench [iterations]
//   (add `-Xswiftc -cross-module-optimization --static-swift-stdlib`, as `make bench` does, so the
//   generic store specializes for the app's state type across the module boundary and calls into
//   the Swift runtime directly)
//   swift run -c release remvvm-bench 1000000 "counter store"   runs only matching scenarios
//   swift run -c release remvvm-bench 1000000 micro   one view encoding and one action decoding (ns/op)
//   swift run -c release remvvm-bench 1000000 api     the API handler's dispatch path without transport
// Reference (ReSwift 6 on this machine): ~830,000 actions/s with no subscriber, ~590,000 with one.

let iterations = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 1_000_000
let header = Benchmark(name: "", iterations: 0)
print(header.row("scenario (\(iterations) ops, best of 5)", "ops/s", "ns/op"))
print(String(repeating: "-", count: 78))

/// The bare counter store ReSwift's figure is measured on: one reducer, one projection.
func counterStore() -> Store<Int> {
    var views = Projections<Int>()
    views.add("counter", from: { $0 }, CounterViewModel.init)
    return Store(
        state: 0, reducer: AnyReducer<Int>.on(CounterAction.Increase.self) { value, _ in value + 1 }, projections: views
    )
}

let increase = CounterAction.Increase()

for observers in [0, 1, 10] {
    let store = counterStore()
    for _ in 0..<observers { store.observe({ $0 }) { _, _ in } }
    _ = Benchmark(name: "counter store, \(observers) observers", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? store.dispatch(increase) }
    }
}

do {
    let store = counterStore()
    for _ in 0..<10 {
        _ = store.waitForChange(after: .max, views: store.allViews) { _ in }
    }
    _ = Benchmark(name: "counter store, 10 parked waiters (never woken)", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? store.dispatch(increase) }
    }
}

do {
    let store = ExampleApp.definition().makeStore()
    _ = Benchmark(name: "example app (7 middleware, 6 views), 0 observers", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? store.dispatch(increase) }
    }
    for _ in 0..<10 { store.observe(\.counter) { _, _ in } }
    _ = Benchmark(name: "example app, 10 observers", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? store.dispatch(increase) }
    }
}

// Two threads, each dispatching to its own store of one definition, as the server's two workers do with
// two sessions: whatever the stores share (reducers, middleware, projections) must not slow them down.
// Ideally twice the one-thread rate on an otherwise idle two-core machine.
do {
    let stores = [ExampleApp.definition().makeStore(), ExampleApp.definition().makeStore()]
    _ = Benchmark(name: "example app, 2 threads, a store each (total)", iterations: iterations).run { count in
        DispatchQueue.concurrentPerform(iterations: stores.count) { index in
            for _ in 0..<count / stores.count { _ = try? stores[index].dispatch(increase) }
        }
    }
}

// How the HTTP server reaches a store: through the type-erased protocol, or through closures
// captured where the state type is known (what the server uses).
do {
    let erased: any ProjectedStore = ExampleApp.definition().makeStore()
    let batch: [any StoreAction] = [increase]
    let none = CommitMetadata()
    _ = Benchmark(name: "example app via any ProjectedStore", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? erased.dispatch(batch, views: .none, expectedVersion: nil, metadata: none) }
    }
    let wrapped: any ProjectedStore = AnyProjectedStore(ExampleApp.definition().makeStore())
    _ = Benchmark(name: "example app via AnyProjectedStore", iterations: iterations).run { count in
        for _ in 0..<count { _ = try? wrapped.dispatch(batch, views: .none, expectedVersion: nil, metadata: none) }
    }
}

// One view encoding and one action decoding, the JSON costs of every dispatch answer.
try runMicroBenchmarks(iterations: iterations)

// The API's request path in-process: what the server adds to a dispatch besides transport and kernel.
try runAPIBenchmarks(iterations: iterations)

// Each example view's dispatch-answer bytes, through the tree and written directly. Before the actor
// scenario: after its first `await` the rest of this file runs on a cooperative thread.
try runViewEncodingBenchmarks(iterations: iterations)

/// The alternative the issue asks to measure before choosing a lock: an actor hop per dispatch.
actor ActorCounterStore {
    private var state = 0
    private var version: UInt64 = 0
    private let reducer = AnyReducer<Int>.on(CounterAction.Increase.self) { value, _ in value + 1 }

    func dispatch(_ action: any StoreAction) -> UInt64 {
        _ = reducer.reduce(&state, with: action)
        version += 1
        return version
    }
}

let actorName = "actor store (reducer only, for comparison)"
if scenarioFilter.map({ actorName.contains($0) }) ?? true {
    let actorStore = ActorCounterStore()
    let actorIterations = iterations
    let actorRate = await {
        var best = Double.infinity
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for _ in 0..<actorIterations { _ = await actorStore.dispatch(increase) }
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return Double(actorIterations) / best
    }()
    print(header.row(actorName, String(format: "%.0f", actorRate), String(format: "%.1f", 1e9 / actorRate)))
}

// The cost of projections: encoding a changed view to JSON and diffing two versions.
do {
    let store = ExampleApp.definition().makeStore()
    let views = store.allViews
    _ = Benchmark(name: "dispatch + encode all 5 views to JSON", iterations: iterations / 10).run { count in
        for _ in 0..<count {
            let outcome = try? store.dispatch([increase], views: views)
            for snapshot in outcome?.views ?? [] { _ = try? snapshot.json().serialized() }
        }
    }
    _ = Benchmark(name: "dispatch + jsonBytes() of all 5 views", iterations: iterations / 10).run { count in
        for _ in 0..<count {
            let outcome = try? store.dispatch([increase], views: views)
            for snapshot in outcome?.views ?? [] { _ = try? snapshot.jsonBytes() }
        }
    }
    let old = try JSONValue.serializedEncoding(of: CounterViewModel(1))
    let new = try JSONValue.serializedEncoding(of: CounterViewModel(2))
    _ = Benchmark(name: "RFC 6902 diff of the counter view", iterations: iterations).run { count in
        for _ in 0..<count { _ = JSONPatch.serializedDiff(fromSerialized: old, to: new) }
    }
}
