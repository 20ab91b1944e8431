import CMicroHTTPD
import Glibc
import Synchronization

/// The request deadlines of a worker's connections: each callback moves a connection's ``RequestDeadline`` on, and
/// the loop closes the late ones between passes.
extension WorkerLoop {
    /// libmicrohttpd read a request line on `connection` (in a callback for it, on the worker thread).
    func requestLineSeen(_ connection: OpaquePointer) {
        let now = passStart.load(ordering: .relaxed)
        ConnectionRecord.of(connection)?.deadline.withLock { $0.requestLineSeen(at: now, limits: deadlineLimits) }
    }

    /// A request's head is complete on `connection`: its body is due.
    func headReceived(_ connection: OpaquePointer) {
        let now = passStart.load(ordering: .relaxed)
        ConnectionRecord.of(connection)?.deadline.withLock { $0.headReceived(at: now, limits: deadlineLimits) }
    }

    /// A request's body is complete on `connection`: nothing is due from the client until its answer went out.
    func bodyReceived(_ connection: OpaquePointer) {
        ConnectionRecord.of(connection)?.deadline.withLock { $0.bodyReceived() }
    }

    /// A request on `connection` completed: the next request line is due.
    func requestCompleted(_ connection: OpaquePointer) {
        let now = passStart.load(ordering: .relaxed)
        ConnectionRecord.of(connection)?.deadline.withLock { $0.requestCompleted(at: now, limits: deadlineLimits) }
    }

    /// Closes the connections past a deadline (on the worker thread, between passes): a late head or body gets a
    /// 408 problem written straight to its socket, which is then shut down, and a keep-alive connection whose
    /// next request line did not come is shut down unanswered; libmicrohttpd closes them on its next pass.
    func closeLateConnections(now: Int64) {
        let late = connections.withLock { connections -> [(OpenConnection, RequestDeadline.Phase)] in
            var late: [(OpenConnection, RequestDeadline.Phase)] = []
            for (connection, record) in connections {
                let phase = record.deadline.withLock { deadline -> RequestDeadline.Phase? in
                    guard let phase = deadline.expired(at: now) else { return nil }
                    deadline.expire()
                    return phase
                }
                if let phase { late.append((connection, phase)) }
            }
            return late
        }
        let configuration = core.configuration
        for (connection, phase) in late {
            let handle = ConnectionHandle(pointer: connection.pointer, worker: self)
            switch phase {
            case .head:
                core.counters.requestHeadTimeouts.add(1, ordering: .relaxed)
                DirectAnswer.send(.requestTimeout("head", limit: configuration.requestHeadTimeout), on: handle)
            case .body:
                core.counters.requestBodyTimeouts.add(1, ordering: .relaxed)
                DirectAnswer.send(.requestTimeout("body", limit: configuration.requestBodyTimeout), on: handle)
            case .idle:
                _ = shutdown(cmhd_connection_socket(connection.pointer), Int32(SHUT_RDWR))
            case .handling:
                break
            }
        }
    }
}
