import MicroHTTP
import Testing

/// Which CPUs the workers get for each ``WorkerPinning`` mode.
@Suite("Worker pinning: the choice of CPUs")
struct WorkerPinningTests {
    @Test func automaticPinsOnlyWhenWorkersAndCPUsAreEquallyMany() {
        #expect(WorkerPinning.automatic.cpus(workers: 2, allowed: [0, 1]) == [0, 1])
        #expect(WorkerPinning.automatic.cpus(workers: 4, allowed: [2, 3, 6, 7]) == [2, 3, 6, 7])
        #expect(WorkerPinning.automatic.cpus(workers: 2, allowed: [0, 1, 2, 3]).isEmpty)
        #expect(WorkerPinning.automatic.cpus(workers: 3, allowed: [0, 1]).isEmpty)
        // One worker on one CPU has nowhere else to go: nothing to pin.
        #expect(WorkerPinning.automatic.cpus(workers: 1, allowed: [5]).isEmpty)
        #expect(WorkerPinning.automatic.cpus(workers: 2, allowed: []).isEmpty)
    }

    @Test func alwaysUsesEveryAllowedCPUAndNeverNone() {
        #expect(WorkerPinning.always.cpus(workers: 2, allowed: [0, 1, 2, 3]) == [0, 1, 2, 3])
        #expect(WorkerPinning.always.cpus(workers: 3, allowed: [1]) == [1])
        #expect(WorkerPinning.never.cpus(workers: 2, allowed: [0, 1]).isEmpty)
    }

    @Test func theModesReadAsTheirCommandLineWords() {
        #expect(WorkerPinning(rawValue: "auto") == .automatic)
        #expect(WorkerPinning(rawValue: "on") == .always)
        #expect(WorkerPinning(rawValue: "off") == .never)
        #expect(WorkerPinning(rawValue: "yes") == nil)
    }

    @Test func theAllowedCPUsAreTheKernelsListInOrder() {
        let cpus = WorkerPinning.allowedCPUs()
        #expect(!cpus.isEmpty)
        #expect(cpus == cpus.sorted())
        #expect(Set(cpus).count == cpus.count)
        #expect(cpus.allSatisfy { $0 >= 0 })
    }
}
