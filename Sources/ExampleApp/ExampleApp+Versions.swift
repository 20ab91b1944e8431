import Foundation
import ReMVVM

extension ExampleApp {
    /// The two builds of the example app, for the upgrade tests and docs (`remvvm-server --app-version 2`).
    ///
    /// Version 2 changes what a deploy changes: its state gains ``AppState/counterLabel`` (with a default), its
    /// `counter/set` payload renames `value` to `count` (``CounterAction/SetCount``) and its `counter` view shows
    /// the label (``LabelledCounterViewModel``).
    public enum Version: Int, Sendable, CaseIterable {
        /// The app as first deployed.
        case v1 = 1
        /// The app after its first change.
        case v2 = 2

        /// The version of the state's shape this build writes in snapshots (`DurabilityConfiguration.stateVersion`).
        public var stateVersion: Int { rawValue }
    }

    /// The counter's label in version 2, for new sessions and those stored by version 1.
    public static let defaultCounterLabel = "Count"

    /// A snapshot's state JSON of an older state version, as version 2 reads it
    /// (`DurabilityConfiguration.migrateState`): version 1 had no counter label.
    public static func migrateState(_ json: Data, from version: Int) throws -> Data {
        guard version < 2 else { return json }
        guard var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw MigrationError("a stored state of version \(version) is not a JSON object")
        }
        object["counterLabel"] = object["counterLabel"] ?? defaultCounterLabel
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// A state's JSON of version 2 as version 1 reads it (`DurabilityConfiguration.downgradeState`): without the
    /// counter label, which version 2 gives back its default when it reads the state again.
    public static func downgradeState(_ json: Data, to version: Int) throws -> Data {
        guard version < 2 else { return json }
        guard var object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw MigrationError("a state to store for version \(version) is not a JSON object")
        }
        object["counterLabel"] = nil
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The reducers of version 2: `counter/set` carries `count`.
    static let reducerV2 = AnyReducer<AppState>(
        CounterReducer.reducerV2.lifted { state, body in body(&state.counter) },
        UserReducer.reducer.lifted(\.user),
        QuoteReducer.reducer.lifted(\.quote),
        Navigation.reducer.lifted(\.navigation),
        LoginNavigationReducer.reducer.lifted(\.navigation),
        ChatReducer.reducer.lifted(\.chat)
    )

    /// The views of version 2: the counter's shows its label.
    static let projectionsV2: Projections<AppState> = {
        var views = projections
        views.add("counter", from: { LabelledCounterViewModel($0) }, { $0 })
        return views
    }()

    /// The app at `version`, as ``definition(services:configuration:topics:)`` makes version 1.
    public static func definition(
        version: Version, services: Services = Services(), configuration: StoreConfiguration = StoreConfiguration(),
        topics: TopicHub? = nil
    ) -> StoreDefinition<AppState> {
        var definition = definition(services: services, configuration: configuration, topics: topics)
        guard version == .v2 else { return definition }
        var state = AppState()
        state.counterLabel = defaultCounterLabel
        definition.initialState = state
        definition.reducer = reducerV2
        definition.projections = projectionsV2
        var actions = ActionRegistry()
        for type in clientActions where ObjectIdentifier(type) != ObjectIdentifier(CounterAction.Set.self) {
            actions.register(type)
        }
        actions.register(CounterAction.SetCount.self)
        definition.clientActions = actions
        return definition
    }
}

/// A stored state the example app cannot migrate.
public struct MigrationError: Error, CustomStringConvertible {
    /// What was wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
