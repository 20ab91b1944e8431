import CWorkerAffinity

/// Whether each libmicrohttpd worker thread is kept on one CPU (``HTTPServerConfiguration/workerPinning``).
///
/// A worker left free moves between CPUs as the scheduler balances load; when the server shares its cores
/// with its clients (a proxy, a load generator), both workers can end up taking turns on one CPU while the
/// other runs the clients, and each move costs the worker its warm caches. A pinned worker stays where its
/// connections' and sessions' data already is. The price is that the scheduler can no longer move a worker
/// to an idle CPU, which matters when the process has many more CPUs than workers and shares them with
/// other work.
public enum WorkerPinning: String, Sendable, CaseIterable {
    /// Pin when the workers and the CPUs this process may run on are equally many (more than one): the
    /// server owns its CPUs, as in a container limited to a CPU set or on a dedicated machine.
    case automatic = "auto"
    /// Always pin, worker `k` to the `k`-th CPU this process may run on (round robin if there are more
    /// workers than CPUs).
    case always = "on"
    /// Never pin: the scheduler places the workers.
    case never = "off"

    /// The CPUs the workers are pinned to, in the order workers claim them; empty when they are not
    /// pinned.
    ///
    /// - Parameters:
    ///   - workers: The number of worker threads.
    ///   - allowed: The CPUs the process may run on.
    public func cpus(workers: Int, allowed: [Int]) -> [Int] {
        switch self {
        case .never: []
        case .always: allowed
        case .automatic: allowed.count > 1 && allowed.count == workers ? allowed : []
        }
    }

    /// The CPUs the calling thread may run on, in increasing order; empty if the kernel would not say.
    public static func allowedCPUs() -> [Int] {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1024) { buffer in
            let count = worker_affinity_cpus(buffer.baseAddress, Int32(buffer.count))
            return count > 0 ? buffer.prefix(Int(count)).map(Int.init) : []
        }
    }
}
