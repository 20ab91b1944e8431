import Foundation
import Logging
import ServiceLifecycle
import UnixSignals

extension StoreServer: Service {
    /// Serves until the task is cancelled or its `ServiceGroup` shuts down gracefully, then stops gracefully:
    /// parked long-polls are answered with their cursor, event streams end, durable sessions are flushed. With
    /// durable storage, the tidy (``SessionTidy``) deletes expired stored sessions meanwhile.
    ///
    /// Starts the server first unless ``start()`` already did. Run it in a `ServiceGroup` beside the app's other
    /// services, or alone with ``runService(gracefulShutdownSignals:)``.
    /// - Throws: ``StoreServerError`` when the server cannot start.
    public func run() async throws {
        if !isServing {
            try start()
            logger.info("ReMVVM server listening on http://\(api.configuration.host):\(port)/")
        }
        let (shutdown, requested) = AsyncStream<Never>.makeStream()
        // The tidy runs beside the server and ends (cancelled) before the server stops and closes the storage.
        await withTaskGroup(of: Void.self) { group in
            if let tidy { group.addTask { try? await tidy.run() } }
            await withTaskCancellationOrGracefulShutdownHandler {
                for await _ in shutdown {}
            } onCancelOrGracefulShutdown: {
                requested.finish()
            }
            group.cancelAll()
        }
        logger.info("stopping: answering parked long-polls, ending event streams")
        // stop() joins the transport's and the housekeeper's threads: a thread of its own waits for them, not
        // one of Swift concurrency's few.
        await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                stop()
                stopped.resume()
            }
            thread.name = "remvvm-stop"
            thread.start()
        }
    }

    /// Runs the server as the only service of a `ServiceGroup` that shuts it down gracefully on
    /// `gracefulShutdownSignals`: the whole lifecycle of a program that only serves.
    ///
    /// ```swift
    /// try await StoreServer(app).runService()
    /// ```
    public func runService(gracefulShutdownSignals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: self)], gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        try await group.run()
    }
}
