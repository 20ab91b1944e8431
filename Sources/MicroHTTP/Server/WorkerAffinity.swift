import CWorkerAffinity

/// The CPU sets behind ``HTTPServerConfiguration/pinsWorkers``.
enum WorkerAffinity {
    /// The CPUs the calling thread may run on, in increasing order; empty if the kernel would not say.
    static func allowedCPUs() -> [Int] {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1024) { buffer in
            let count = worker_affinity_cpus(buffer.baseAddress, Int32(buffer.count))
            return count > 0 ? buffer.prefix(Int(count)).map(Int.init) : []
        }
    }
}
