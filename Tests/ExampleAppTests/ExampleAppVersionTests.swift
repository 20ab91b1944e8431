import ExampleApp
import Foundation
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMTesting
import Testing

/// Version 2 of the example app and its migrations, tested as reducers are: old JSON in, new value out.
@Suite("Example app, version 2")
struct ExampleAppVersionTests {
    @Test func version1sCounterSetPayloadMigratesToVersion2s() throws {
        #expect(CounterAction.SetCount.wireVersion == 2)
        #expect(CounterAction.Set.wireVersion == 1)
        let migrated = try CounterAction.SetCount.migrate(payload: Data(#"{"value":7}"#.utf8), from: 1)
        #expect(migrated == CounterAction.SetCount(count: 7))
    }

    @Test func version2sCounterSetReadsCountAndAVersion1ClientsValueAndWritesCount() throws {
        let registry = ExampleApp.definition(version: .v2).actions
        let sent = try registry.decodeClientActions(from: Array(#"{"type":"counter/set","payload":{"count":4}}"#.utf8))
        #expect(sent.first as? CounterAction.SetCount == CounterAction.SetCount(count: 4))
        let old = try registry.decodeClientActions(from: Array(#"{"type":"counter/set","payload":{"value":5}}"#.utf8))
        #expect(old.first as? CounterAction.SetCount == CounterAction.SetCount(count: 5))
        let written = try ActionRegistry.encode(CounterAction.SetCount(count: 6))
        #expect(String(decoding: written, as: UTF8.self) == #"{"payload":{"count":6},"type":"counter/set"}"#)
    }

    @Test func version2WritesCounterSetInVersion1sShapeWhileVersion1NodesLive() throws {
        let payload = try CounterAction.SetCount.downgrade(payload: Data(#"{"count":3}"#.utf8), to: 1)
        #expect(String(decoding: payload, as: UTF8.self) == #"{"value":3}"#)
        #expect(try CounterAction.SetCount.migrate(payload: payload, from: 1) == CounterAction.SetCount(count: 3))
    }

    @Test func version2WritesItsStateInVersion1sShapeWithoutTheLabel() throws {
        var state = AppState()
        state.counter = 4
        state.counterLabel = "Count"
        let version1 = try ExampleApp.downgradeState(try JSONEncoder().encode(state), to: 1)
        #expect(!String(decoding: version1, as: UTF8.self).contains("counterLabel"))
        let read = try JSONDecoder().decode(AppState.self, from: version1)
        #expect(read.counter == 4)
        #expect(read.counterLabel == nil)
        #expect(
            try JSONDecoder().decode(AppState.self, from: try ExampleApp.migrateState(version1, from: 1)) == state)
    }

    @Test func aVersion1StateMigratesWithTheDefaultLabel() throws {
        var state = AppState()
        state.counter = 3
        let version1 = try JSONEncoder().encode(state)
        #expect(!String(decoding: version1, as: UTF8.self).contains("counterLabel"))
        let migrated = try JSONDecoder().decode(AppState.self, from: try ExampleApp.migrateState(version1, from: 1))
        #expect(migrated.counter == 3)
        #expect(migrated.counterLabel == ExampleApp.defaultCounterLabel)
        // A state of the current version is left as it is.
        #expect(try ExampleApp.migrateState(version1, from: 2) == version1)
    }

    @Test func version2sReducersSetTheCounterAndItsViewShowsTheLabel() throws {
        let store = TestStore(ExampleApp.definition(version: .v2))
        #expect(store.store.state.counterLabel == ExampleApp.defaultCounterLabel)
        store.send(CounterAction.SetCount(count: 9)) { $0.counter = 9 }
        store.send(CounterAction.Increase()) { $0.counter = 10 }
        let view = try #require(store.view("counter", as: LabelledCounterViewModel.self))
        #expect(view.counter == "10")
        #expect(view.label == "Count")
    }

    @Test func version1IsUnchanged() throws {
        let definition = ExampleApp.definition(version: .v1)
        #expect(definition.initialState.counterLabel == nil)
        let store = TestStore(definition)
        store.send(CounterAction.Set(value: 2)) { $0.counter = 2 }
        #expect(store.view("counter", as: CounterViewModel.self)?.counter == "2")
    }
}
