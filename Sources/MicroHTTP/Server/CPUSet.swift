import CTransport

/// The CPUs this process may run on, for the default thread count and for pinned workers.
enum CPUSet {
    /// The CPUs the calling thread may run on, in increasing order; empty if the kernel would not say.
    static func allowedCPUs() -> [Int] {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 1024) { buffer in
            let count = remvvm_allowed_cpus(buffer.baseAddress, Int32(buffer.count))
            return count > 0 ? buffer.prefix(Int(count)).map(Int.init) : []
        }
    }

    /// How many CPUs this process may run on (a container's or `taskset`'s restriction counts); at least 1.
    static var count: Int { Int(remvvm_cpu_count()) }
}
