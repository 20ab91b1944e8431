#if canImport(Observation)
    public import Observation

    /// One view of a ``RemoteStore`` as an observable model: a SwiftUI view reads ``value`` and redraws when it
    /// changes.
    ///
    /// ```swift
    /// struct CounterScreen: View {
    ///     @State var counter = LiveView(store, view: "counter", as: CounterView.self)
    ///     var body: some View { Text(counter.value.map { "\($0.count)" } ?? "…") }
    /// }
    /// ```
    ///
    /// It follows the view from its creation until it is released.
    @MainActor
    @Observable
    public final class LiveView<Value: Decodable & Sendable> {
        /// The latest value, predictions included; nil until the first one arrives.
        public private(set) var value: Value?
        /// Why following stopped, if it did.
        public private(set) var error: (any Error)?
        @ObservationIgnored private var task: Task<Void, Never>?

        /// Follows view `name` of `store` as `Value`.
        public init(_ store: RemoteStore, view name: String, as type: Value.Type = Value.self) {
            task = Task { [weak self] in
                do {
                    for try await value in await store.follow(name, as: type) {
                        guard let self else { return }
                        self.value = value
                    }
                } catch {
                    self?.error = error
                }
            }
        }

        deinit {
            task?.cancel()
        }
    }
#endif
