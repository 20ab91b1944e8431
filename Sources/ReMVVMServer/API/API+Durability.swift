import MicroHTTP
import ReMVVMPersistence

extension API {
    /// Passes a successful answer to `answer` once everything it reports is durable; anything
    /// else (and every answer without durability) at once.
    ///
    /// The wait holds no thread: the libmicrohttpd worker returns, the connection parks, and the
    /// group-commit writer's thread answers after its transaction.
    func whenDurable(_ response: HTTPResponse, _ answer: @escaping @Sendable (HTTPResponse) -> Void) {
        guard let durability, (200..<300).contains(response.status) else {
            answer(response)
            return
        }
        durability.whenDurable { error in
            guard let error else {
                answer(response)
                return
            }
            answer(Problem.notDurable(error).response)
        }
    }
}

extension Problem {
    /// The change was made in memory but could not be stored, so a restart could lose it.
    static func notDurable(_ error: StorageError) -> Problem {
        Problem(
            status: 503, slug: "not-durable", title: "Service Unavailable",
            detail: "the change could not be stored durably (\(error)) and may be lost if the server restarts",
            headers: ["Retry-After": "1"])
    }
}
