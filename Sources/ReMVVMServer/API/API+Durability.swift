import MicroHTTP
import ReMVVMPersistence

extension API {
    /// Passes a successful answer to `answer` once everything it reports is durable; anything
    /// else (and every answer without durability) at once.
    ///
    /// The wait holds no thread: the libmicrohttpd worker returns, the connection parks, and the
    /// group-commit writer's thread answers after its transaction. When another node took `session`
    /// over meanwhile, its writes were refused: the answer is a 503 that sends the client there.
    func whenDurable(
        _ response: HTTPResponse, session: String? = nil, _ answer: @escaping @Sendable (HTTPResponse) -> Void
    ) {
        guard let durability, (200..<300).contains(response.status) else {
            answer(response)
            return
        }
        durability.whenDurable(session: session) { error in
            guard let error else {
                answer(response)
                return
            }
            answer(error.isFenced ? Problem.sessionMoved.response : Problem.notDurable(error).response)
        }
    }

    /// Calls `shown` with nil once `version` of `session` is durable, or with the problem to answer instead of
    /// showing it (the session moved; the storage failed).
    ///
    /// A version the writer already stored (``Session/durable``, an atomic load) is shown at once, whatever the
    /// writer's health or queue: reads of held sessions keep working while the storage is down. A newer one waits
    /// for the barrier behind its commit, which was queued before the version became visible; while the storage
    /// is known to be failing it is refused at once, as its write cannot succeed before the repair.
    func whenStored(_ version: UInt64, of session: Session, _ shown: @escaping @Sendable (Problem?) -> Void) {
        guard let durability, version > session.durable.version else {
            shown(nil)
            return
        }
        guard !durability.isFailing else {
            shown(.storageDown)
            return
        }
        durability.whenDurable(session: session.id) { error in
            guard let error else {
                shown(nil)
                return
            }
            shown(error.isFenced ? .sessionMoved : .storageDown)
        }
    }
}

extension Problem {
    /// The shared storage's last write failed: nothing of this request was applied or stored.
    static let storageDown = Problem(
        status: 503, slug: "storage-unavailable", title: "Service Unavailable",
        detail:
            "the durable storage cannot be written now, so nothing of this request was applied; retry (with the "
            + "same Idempotency-Key) once it is back",
        headers: ["Retry-After": "1"])

    /// Another node took the session over: this node's writes for it are refused and its copy is dropped.
    static let sessionMoved = Problem(
        status: 503, slug: "session-moved", title: "Service Unavailable",
        detail:
            "another node took this session over and nothing of this request was stored; retry (with the same "
            + "Idempotency-Key) to reach it", headers: ["Retry-After": "1"])

    /// The shared storage could not be read, so the session could not be loaded; or a newer build of the app wrote
    /// the session (a rolling deploy): a node of that build serves it, so the balancer is to retry elsewhere.
    static func storageUnavailable(_ error: StorageError) -> Problem {
        guard !error.isIncompatible else {
            return Problem(
                status: 503, slug: "newer-build", title: "Service Unavailable",
                detail:
                    "this session was written by a newer build of the app than this node runs (\(error.message)); "
                    + "it is kept: retry to reach a node of the newer build", headers: ["Retry-After": "1"])
        }
        return Problem(
            status: 503, slug: "storage-unavailable", title: "Service Unavailable",
            detail: "the session could not be loaded from the shared storage (\(error))", headers: ["Retry-After": "1"])
    }

    /// Too many sessions wait to be loaded from the shared storage (``ServerConfiguration/maxPendingLoads``).
    static let loadingBusy = Problem(
        status: 503, slug: "loading-busy", title: "Service Unavailable",
        detail:
            "this node is loading too many sessions from the shared storage at once to take another; retry after "
            + "the Retry-After delay (the limit is --max-pending-loads)", headers: ["Retry-After": "1"])

    /// The server is stopping and takes no session any more.
    static let draining = Problem(
        status: 503, slug: "draining", title: "Service Unavailable",
        detail: "this node is stopping and takes no session; retry to reach another node", headers: ["Retry-After": "1"]
    )

    /// The change was made in memory but could not be stored, so a restart could lose it.
    static func notDurable(_ error: StorageError) -> Problem {
        Problem(
            status: 503, slug: "not-durable", title: "Service Unavailable",
            detail: "the change could not be stored durably (\(error)) and may be lost if the server restarts",
            headers: ["Retry-After": "1"])
    }
}
