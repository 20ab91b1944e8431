// The app side of the same counter, for an iPhone or a Mac: the shared types, a LiveView, SwiftUI. Compiled where
// SwiftUI exists (not on Linux, where the command line above is the client).
#if canImport(SwiftUI)
    import CounterShared
    import ReMVVMClient
    import SwiftUI

    /// The counter, redrawn on every change from any device, and a button that shows its own change at once.
    @MainActor
    struct CounterScreen: View {
        let store: RemoteStore
        @State private var counter: LiveView<CounterView>

        init(store: RemoteStore) {
            self.store = store
            _counter = State(initialValue: LiveView(store, view: "counter", as: CounterView.self))
        }

        var body: some View {
            VStack {
                Text(counter.value.map { "\($0.count)" } ?? "…")
                Button("Increase") {
                    // Queued in the outbox at once (kept while offline); the prediction shows until the server's
                    // version with the action arrives.
                    Task {
                        _ = try? await store.enqueue(Increase(), predicting: "counter", as: CounterView.self) {
                            $0.count += 1
                        }
                    }
                }
            }
        }
    }
#endif
