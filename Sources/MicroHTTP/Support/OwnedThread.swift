import Glibc

/// A named thread that runs one body and is joined by whoever started it: the transport's workers and
/// disconnect-watch thread, and the server's housekeeping.
///
/// Each of them blocks in a system call for as long as nothing happens, which a task of Swift's small
/// concurrency pool must not do; a thread of its own, named, also shows up as itself in `top -H` and `perf`.
package struct OwnedThread: Sendable {
    /// An integer on Linux.
    private let thread: pthread_t

    /// What the new thread runs, retained across `pthread_create`.
    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    private init(thread: pthread_t) {
        self.thread = thread
    }

    /// Starts a thread named `name` (at most 15 bytes are kept) that runs `body`; nil if the system refused one.
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> OwnedThread? {
        let retained = Unmanaged.passRetained(Work(name: name, body: body))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let work = Unmanaged<Work>.fromOpaque(argument).takeRetainedValue()
                ThreadName.set(work.name)
                work.body()
                return nil
            },
            retained.toOpaque())
        guard created == 0 else {
            retained.release()
            return nil
        }
        return OwnedThread(thread: thread)
    }

    /// Waits until the body has returned; call it once.
    package func join() {
        pthread_join(thread, nil)
    }
}
