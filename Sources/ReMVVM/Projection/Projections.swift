/// The app's named view-model factories: ReMVVM's `ViewModelFactory`, keyed by view name.
///
/// ```swift
/// var views = Projections<AppState>()
/// views.add("counter", from: \.counter) { CounterViewModel(counter: String($0)) }
/// ```
/// A factory reading a substate (`from: \.counter`) is recomputed only when that substate
/// changes, which is what makes "which views changed" cheap to answer after every dispatch.
public struct Projections<State>: Sendable {
    private(set) var entries: [Projection<State>] = []
    private var indexByName: [String: Int] = [:]

    /// No projections yet.
    public init() {}

    /// The registered view names, in registration order.
    ///
    /// Kept beside the projections: a name is looked up on every request that names its views, and a list of
    /// strings is read without the generic projections' metadata.
    public private(set) var names: [String] = []

    /// How many views are registered.
    public var count: Int { entries.count }

    /// Registers a view computed from a substate; `source` is typically a key path such as `\.counter`.
    ///
    /// Registering a name again replaces the earlier factory. At most ``ViewSet/capacity``
    /// views can be registered; more is a programming error caught when the app is defined.
    public mutating func add<Substate: Equatable & SendableMetatype, Model: ViewModel>(
        _ name: String,
        from source: @escaping @Sendable (State) -> Substate,
        _ factory: @escaping @Sendable (Substate) -> Model
    ) {
        insert(Projection(name: name, source: source, factory: factory))
    }

    /// Registers a view computed from the whole state (recomputed and compared after every dispatch).
    public mutating func add<Model: ViewModel>(_ name: String, _ factory: @escaping @Sendable (State) -> Model) {
        insert(Projection(name: name, factory: factory))
    }

    /// The index of the view called `name`.
    @_spi(ReMVVMServer) public func index(of name: String) -> Int? {
        // An app has a handful of views: comparing their names costs less than hashing the one asked for, which
        // every request naming its views (`?views=`) does.
        guard names.count <= Self.namesCompared else { return indexByName[name] }
        return names.withUnsafeBufferPointer { names in
            for index in names.indices where names[index] == name { return index }
            return nil
        }
    }

    /// Up to how many views a name is found by comparing rather than hashing.
    private static var namesCompared: Int { 16 }

    /// The one view called `name`, or the name as unknown: what most requests ask for (`?views=counter`),
    /// without a list to allocate.
    @_spi(ReMVVMServer) public func viewSet(named name: String) -> Result<ViewSet, UnknownViewError> {
        guard let index = index(of: name) else { return .failure(UnknownViewError(name: name)) }
        var set = ViewSet.none
        set.insert(index)
        return .success(set)
    }

    /// The set of views with these names, or the first unknown name.
    ///
    /// The array form is what stores call on every request: concrete, so it needs no generic
    /// specialization to be fast when reached through `any ProjectedStore`.
    @_spi(ReMVVMServer) public func viewSet(named names: [String]) -> Result<ViewSet, UnknownViewError> {
        var set = ViewSet.none
        for name in names {
            guard let index = index(of: name) else { return .failure(UnknownViewError(name: name)) }
            set.insert(index)
        }
        return .success(set)
    }

    /// The set of views with these names, or the first unknown name.
    @_spi(ReMVVMServer) public func viewSet(named names: some Sequence<String>) -> Result<ViewSet, UnknownViewError> {
        viewSet(named: Array(names))
    }

    /// Every registered view.
    @_spi(ReMVVMServer) public var all: ViewSet { .all(entries.count) }

    private mutating func insert(_ projection: Projection<State>) {
        if let index = indexByName[projection.name] {
            entries[index] = projection
            return
        }
        precondition(entries.count < ViewSet.capacity, "a store supports at most \(ViewSet.capacity) views")
        indexByName[projection.name] = entries.count
        entries.append(projection)
        names.append(projection.name)
    }
}

/// A view name that no projection is registered under.
@_spi(ReMVVMServer) public struct UnknownViewError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name that was asked for.
    @_spi(ReMVVMServer) public let name: String

    /// An error for the unknown view `name`.
    @_spi(ReMVVMServer) public init(name: String) { self.name = name }

    @_spi(ReMVVMServer) public var description: String { "unknown view '\(name)'" }
}
