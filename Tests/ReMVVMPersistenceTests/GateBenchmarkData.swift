import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMSQLite
import Testing

@testable import ReMVVMPersistence

/// Writes the database `bench/gate.sh` times `verify-upgrade` on: `REMVVM_GATE_BENCH_SESSIONS` sessions (10,000) of
/// `REMVVM_GATE_BENCH_ACTIONS` logged actions each (100), by version 1 of the example app, into the SQLite file in
/// the folder `REMVVM_GATE_BENCH_DIR`, then a clean stop (a snapshot of each, the log since version 1 kept). Only
/// when that variable is set: it is the benchmark's data, not a test.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["REMVVM_GATE_BENCH_DIR"] != nil))
struct GateBenchmarkData {
    @Test func writeVersion1Sessions() async throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = try #require(environment["REMVVM_GATE_BENCH_DIR"])
        let sessions = Int(environment["REMVVM_GATE_BENCH_SESSIONS"] ?? "") ?? 10_000
        let actions = Int(environment["REMVVM_GATE_BENCH_ACTIONS"] ?? "") ?? 100
        var durability = DurabilityConfiguration()
        durability.snapshotEvery = actions + 1
        let storage = try SQLiteSessionStorage(directory: directory, synchronous: .normal)
        let durable = DurableSessions(ExampleApp.definition(), storage: storage, configuration: durability)
        for index in 0..<sessions {
            let store = durable.makeTypedStore(for: newRecord(String(format: "s%06d", index)))
            for step in 0..<actions {
                switch step % 10 {
                case 0: try store.dispatch(CounterAction.Set(value: step))
                case 3: try store.dispatch(UserAction.Login(firstName: "Ada\(index)", lastName: "Lovelace"))
                case 5: try store.dispatch(NavigationAction.Push(Screen("details", params: ["item": "\(step)"])))
                case 6: try store.dispatch(NavigationAction.Pop())
                case 8: try store.dispatch(UserAction.Logout())
                default: try store.dispatch(CounterAction.Increase())
                }
            }
            if index % 500 == 499 { #expect(await durable.durable() == nil) }
        }
        #expect(await durable.durable() == nil)
        durable.shutdown()
    }
}
