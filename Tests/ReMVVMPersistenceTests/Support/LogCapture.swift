import InMemoryLogging
import Logging

/// A logger whose messages tests can read.
struct LogCapture {
    let handler = InMemoryLogHandler()
    var logger: Logger {
        let handler = self.handler
        return Logger(label: "test") { _ in handler }
    }

    /// Every message at `level` or above, as text.
    func messages(atLeast level: Logger.Level = .error) -> [String] {
        handler.entries.filter { $0.level >= level }.map { "\($0.message)" }
    }
}
