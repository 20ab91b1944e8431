import CWorkerAffinity
import Glibc
import HTTPTestClient
import Testing

@testable import MicroHTTP

/// Worker threads kept on a CPU of their own (``HTTPServerConfiguration/pinsWorkers``), seen from the
/// handler, which runs on the worker itself.
@Suite("Pinned workers")
struct PinnedWorkersTests {
    /// What one request saw on its worker thread.
    private struct Sighting: Sendable {
        let worker: UInt
        let workerCPUs: [Int]
        /// The CPUs of a thread the worker started during the request.
        let childCPUs: [Int]
    }

    @Test func eachWorkerRunsOnACPUOfItsOwnAndItsThreadsDoNot() throws {
        let allowed = WorkerAffinity.allowedCPUs()
        let sightings = Shared<[Sighting]>([])
        try withServer({ $0.pinsWorkers = true }, handler: Self.recording(into: sightings)) { server in
            #expect(server.workerCPUs == allowed)
            try Self.requestAtOnce(count: 12, port: server.port)
        }
        // A sanitizer build leaves pthread_create to the sanitizer: the worker's threads then keep its CPU.
        let unpinsChildren = worker_affinity_is_sanitized() == 0
        #expect(worker_affinity_unpins_children() == (unpinsChildren ? 1 : 0))
        let seen = sightings.value
        #expect(seen.count == 12)
        for sighting in seen {
            #expect(sighting.workerCPUs.count == 1, "a worker may run on \(sighting.workerCPUs)")
            #expect(sighting.workerCPUs.allSatisfy(allowed.contains))
            #expect(
                sighting.childCPUs == (unpinsChildren ? allowed : sighting.workerCPUs),
                "a thread started by a pinned worker may run on \(sighting.childCPUs)")
        }
        // Workers take the CPUs in turn, so as long as there are enough CPUs no two share one (a check that
        // only bites when more than one worker answered).
        var cpuOfWorker: [UInt: [Int]] = [:]
        for sighting in seen { cpuOfWorker[sighting.worker] = sighting.workerCPUs }
        if cpuOfWorker.count <= allowed.count {
            #expect(Set(cpuOfWorker.values).count == cpuOfWorker.count, "workers and their CPUs: \(cpuOfWorker)")
        }
    }

    @Test func byDefaultWorkersRunWhereverTheProcessMay() throws {
        let allowed = WorkerAffinity.allowedCPUs()
        let sightings = Shared<[Sighting]>([])
        try withServer(handler: Self.recording(into: sightings)) { server in
            #expect(server.workerCPUs.isEmpty)
            try Self.requestAtOnce(count: 4, port: server.port)
        }
        #expect(sightings.value.count == 4)
        #expect(sightings.value.allSatisfy { $0.workerCPUs == allowed && $0.childCPUs == allowed })
    }

    /// A handler that records its worker, the worker's CPUs and those of a thread it starts, then answers.
    private static func recording(into sightings: Shared<[Sighting]>) -> @Sendable (HTTPRequest, Responder) -> Void {
        { request, responder in
            let sighting = Sighting(
                worker: UInt(bitPattern: Int(pthread_self())), workerCPUs: WorkerAffinity.allowedCPUs(),
                childCPUs: cpusOfANewThread())
            sightings.update { $0.append(sighting) }
            responder.respond(.text("seen \(request.path)"))
        }
    }

    /// Starts a thread with `pthread_create`, as libdispatch does to grow its pool, and returns the CPUs it
    /// may run on.
    private static func cpusOfANewThread() -> [Int] {
        let result = Unmanaged.passRetained(Shared<[Int]>([]))
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { context in
                guard let context else { return nil }
                let result = Unmanaged<Shared<[Int]>>.fromOpaque(context).takeUnretainedValue()
                result.update { $0 = WorkerAffinity.allowedCPUs() }
                return nil
            }, result.toOpaque())
        guard created == 0 else {
            result.release()
            return []
        }
        pthread_join(thread, nil)
        return result.takeRetainedValue().value
    }

    /// Sends `count` requests on as many connections before reading any answer, so that both workers may get
    /// some (which worker accepts a connection is libmicrohttpd's choice).
    private static func requestAtOnce(count: Int, port: UInt16) throws {
        let clients = try (0..<count).map { _ in try TestHTTPClient(port: port) }
        for (index, client) in clients.enumerated() {
            try client.sendRequest("GET", "/pinned/\(index)")
        }
        for (index, client) in clients.enumerated() {
            #expect(try client.readResponse().text == "seen /pinned/\(index)")
        }
    }
}
