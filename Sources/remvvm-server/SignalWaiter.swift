import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM without a thread of its own: the signals are routed to a
/// dispatch source instead of their default handler.
final class SignalWaiter {
    private let sources: [any DispatchSourceSignal]
    private let stream: AsyncStream<Int32>

    init(signals: [Int32]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        self.stream = stream
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// The next signal received.
    func next() async -> Int32 {
        for await number in stream { return number }
        return SIGTERM
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
