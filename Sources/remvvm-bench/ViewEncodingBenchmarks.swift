import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// Times encoding each example view model to the bytes a dispatch answer carries, both ways: through the
/// `JSONValue` tree then serialized (the old `jsonBytes()`), and written straight into bytes (the new one).
func runViewEncodingBenchmarks(iterations: Int) throws {
    let store = ExampleApp.definition().makeStore()
    try store.dispatch(CounterAction.Set(value: 5))
    try store.dispatch(UserAction.Login(firstName: "Ada", lastName: "Lovelace"))
    for snapshot in store.views(store.allViews).snapshots {
        let viewModel = snapshot.viewModel
        _ = try Benchmark(name: "view \(snapshot.name): tree + serialize", iterations: iterations).run { count in
            for _ in 0..<count { _ = try treeBytes(viewModel) }
        }
        _ = try Benchmark(name: "view \(snapshot.name): bytes encoder", iterations: iterations).run { count in
            for _ in 0..<count { _ = try JSONValue.serializedEncoding(of: viewModel) }
        }
    }
}

/// The old path, kept here to measure against.
private func treeBytes(_ viewModel: some Encodable) throws -> [UInt8] {
    try JSONValue(encoding: viewModel).serialized()
}
