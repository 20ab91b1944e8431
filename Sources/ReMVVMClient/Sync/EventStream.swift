import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An event stream request as an async sequence of events, read through a `URLSessionDataDelegate`: that works
/// the same with Apple's Foundation and with FoundationNetworking, which has no `bytes(for:)`.
///
/// The sequence ends normally when the server closes the stream, and throws a ``ClientError`` for a refusal
/// (204 is a session gone) or a lost connection. Ending the iteration cancels the request.
enum EventStream {
    static func open(_ request: URLRequest) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: ServerSentEvent.self, throwing: (any Error).self)
        let reader = EventStreamReader(continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let settings = URLSessionConfiguration.ephemeral
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: settings, delegate: reader, delegateQueue: queue)
        let task = session.dataTask(with: request)
        // Only the task is cancelled here: invalidating the session at the same time races the cancellation in
        // FoundationNetworking (a trap: "a task that is not in the registry"). The session is invalidated when
        // the task has completed, which also releases the delegate it keeps.
        continuation.onTermination = { _ in
            // After completion a cancel would trap the same way, so only a running task is cancelled.
            if !reader.isCompleted { task.cancel() }
        }
        task.resume()
        return stream
    }
}

/// The delegate of one event stream request.
final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safety: `parser` and `failed` are used only in delegate callbacks, which the session calls one at a time on
    // its serial queue (`maxConcurrentOperationCount = 1`); the continuation is Sendable, `completed` a Mutex.
    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private var parser = EventStreamParser()
    private var failed = false
    private let completed = Mutex(false)

    /// Whether the task has completed (or been refused), so it must not be cancelled any more.
    var isCompleted: Bool { completed.withLock { $0 } }

    init(_ continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard status != 200 else {
            completionHandler(.allow)
            return
        }
        let retryAfter = (http?.value(forHTTPHeaderField: "Retry-After")).flatMap { Int($0) }.map {
            Duration.seconds($0)
        }
        let error =
            status == 204
            ? ClientError(.sessionNotFound, status: 204, detail: "no such session for this token")
            : ClientError(status: status, body: Data(), retryAfter: retryAfter)
        failed = true
        completed.withLock { $0 = true }
        continuation.finish(throwing: error)
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        for event in parser.feed(data) { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed.withLock { $0 = true }
        session.finishTasksAndInvalidate()
        guard !failed else { return }
        if let error {
            continuation.finish(throwing: ClientError(.unreachable, detail: error.localizedDescription))
        } else {
            continuation.finish()
        }
    }
}
