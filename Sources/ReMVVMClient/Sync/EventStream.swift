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
    /// Opens `request`. With FoundationNetworking, `warmUp` (a small request to the same server) is sent first on
    /// the stream's own session, so that the stream reuses its connection: on a connection of its own, libcurl's
    /// interest in writing while connecting outlives the connect (FoundationNetworking's `_MultiHandle` adds
    /// dispatch sources for what libcurl asks but never removes the write source until the socket is dropped),
    /// and the always-writable socket then wakes the session's queue without pause for as long as the stream is
    /// open (most of a core, measured with `counter-client follow`). A reused connection is asked for reading
    /// only. Apple's Foundation has no such loop and sends no warm-up.
    static func open(_ request: URLRequest, warmUp: URLRequest?) -> AsyncThrowingStream<ServerSentEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: ServerSentEvent.self, throwing: (any Error).self)
        let reader = EventStreamReader(continuation)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let settings = URLSessionConfiguration.ephemeral
        settings.requestCachePolicy = .reloadIgnoringLocalCacheData
        // One connection, so that the stream finds the warm-up's.
        settings.httpMaximumConnectionsPerHost = 1
        let session = URLSession(configuration: settings, delegate: reader, delegateQueue: queue)
        // Only the task is cancelled here: invalidating the session at the same time races the cancellation in
        // FoundationNetworking (a trap: "a task that is not in the registry"). The session is invalidated when
        // the task has completed, which also releases the delegate it keeps.
        continuation.onTermination = { _ in reader.terminate()?.cancel() }
        #if canImport(FoundationNetworking)
            if let warmUp {
                // With a completion handler, the delegate sees nothing of this task. Whatever its answer (or
                // failure), the stream starts, unless its consumer is gone; a failure of the stream itself is what
                // the caller hears of.
                session.dataTask(with: warmUp) { _, _, _ in
                    if !reader.start(session.dataTask(with: request)) { session.finishTasksAndInvalidate() }
                }.resume()
                return stream
            }
        #endif
        _ = reader.start(session.dataTask(with: request))
        return stream
    }
}

/// The delegate of one event stream request.
final class EventStreamReader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Safety: `parser` and `failed` are used only in delegate callbacks, which the session calls one at a time on
    // its serial queue (`maxConcurrentOperationCount = 1`); the continuation is Sendable, `state` a Mutex.
    private let continuation: AsyncThrowingStream<ServerSentEvent, any Error>.Continuation
    private var parser = EventStreamParser()
    private var failed = false
    private let state = Mutex(State())

    /// The stream's task once started, whether its consumer ended it, whether it completed (or was refused).
    private struct State {
        var task: URLSessionDataTask?
        var terminated = false
        var completed = false
    }

    /// Resumes `task` (made only now, so that a task is never cancelled before it runs) unless the consumer has
    /// already gone; answers whether it did.
    func start(_ task: @autoclosure () -> URLSessionDataTask) -> Bool {
        state.withLock { state in
            guard !state.terminated else { return false }
            let started = task()
            state.task = started
            started.resume()
            return true
        }
    }

    /// Marks the stream as ended by its consumer; answers its task if that runs and must be cancelled (after its
    /// completion a cancel would trap the same way as with the session).
    func terminate() -> URLSessionDataTask? {
        state.withLock { state in
            state.terminated = true
            return state.completed ? nil : state.task
        }
    }

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
        state.withLock { $0.completed = true }
        continuation.finish(throwing: error)
        completionHandler(.cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        for event in parser.feed(data) { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        state.withLock { $0.completed = true }
        session.finishTasksAndInvalidate()
        guard !failed else { return }
        if let error {
            continuation.finish(throwing: ClientError(.unreachable, detail: error.localizedDescription))
        } else {
            continuation.finish()
        }
    }
}
