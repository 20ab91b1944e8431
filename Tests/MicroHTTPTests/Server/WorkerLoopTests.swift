import CTransport
import Glibc
import HTTPTestClient
import Testing

@testable import MicroHTTP

/// The transport's own worker threads: each runs one libmicrohttpd daemon on the shared listening socket, and
/// resumes its own parked connections, whichever thread answered them.
@Suite("Worker loops")
struct WorkerLoopTests {
    /// The calling thread, as a number.
    private static var currentThread: UInt { UInt(bitPattern: Int(pthread_self())) }

    @Test func byDefaultThereIsOneWorkerPerCPU() throws {
        #expect(HTTPServerConfiguration().threadPoolSize == CPUSet.count)
        #expect(CPUSet.count == max(CPUSet.allowedCPUs().count, 1))
        try withServer(handler: { _, responder in responder.respond(.text("ok")) }) { server in
            #expect(server.workerCount == CPUSet.count)
        }
    }

    @Test(arguments: [1, 3, 5])
    func severalDaemonsShareAnEphemeralPortAndAnswerEveryConnection(threads: Int) throws {
        let handlers = Shared<Set<UInt>>([])
        try withServer(
            { $0.threadPoolSize = threads },
            handler: { request, responder in
                handlers.update { _ = $0.insert(Self.currentThread) }
                responder.respond(.text("answer for \(request.path)"))
            }
        ) { server in
            #expect(server.port != 0)
            #expect(server.workerCount == threads)
            let clients = try (0..<24).map { _ in try TestHTTPClient(port: server.port) }
            for (index, client) in clients.enumerated() {
                try client.sendRequest("GET", "/item/\(index)")
            }
            for (index, client) in clients.enumerated() {
                #expect(try client.readResponse().text == "answer for /item/\(index)")
            }
            #expect(eventually { server.openConnections == 24 })
        }
        #expect(handlers.value.count >= 1 && handlers.value.count <= threads)
    }

    /// Answers given on other threads (many at once) resume each connection on the worker that parked it: the
    /// request ends, and its termination handlers run, on the thread that handled it.
    @Test func answersFromOtherThreadsResumeEachConnectionOnItsOwnWorker() throws {
        let count = 40
        let parked = Shared<[Int: (responder: Responder, worker: UInt)]>([:])
        let endedOn = Shared<[Int: (worker: UInt, ended: UInt)]>([:])
        try withServer(
            { $0.threadPoolSize = 3 },
            handler: { request, responder in
                guard let index = Int(request.path.dropFirst()) else {
                    responder.respond(.text("?"))
                    return
                }
                let worker = Self.currentThread
                responder.onTermination { endedOn.update { $0[index] = (worker, Self.currentThread) } }
                parked.update { $0[index] = (responder, worker) }
            }
        ) { server in
            let clients = try (0..<count).map { _ in try TestHTTPClient(port: server.port) }
            for (index, client) in clients.enumerated() {
                try client.sendRequest("GET", "/\(index)")
            }
            #expect(eventually { server.suspendedConnections == count })
            // Four threads answer ten parked requests each, at the same time.
            let answering = parked.value
            let threads = (0..<4).compactMap { part in
                OwnedThread.start(named: "test-answer") {
                    for index in stride(from: part, to: count, by: 4) {
                        answering[index]?.responder.respond(.text("late \(index)"))
                    }
                }
            }
            #expect(threads.count == 4)
            for thread in threads { thread.join() }
            for (index, client) in clients.enumerated() {
                #expect(try client.readResponse().text == "late \(index)")
            }
            #expect(eventually { endedOn.value.count == count && server.suspendedConnections == 0 })
        }
        #expect(endedOn.value.values.allSatisfy { $0.worker == $0.ended }, "\(endedOn.value)")
    }

    @Test func stoppingAnswersConnectionsParkedOnEveryWorker() throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadPoolSize: 3),
            handler: ClosureHandler { _, _ in })
        try server.start()
        let clients = try (0..<12).map { _ in try TestHTTPClient(port: server.port) }
        for client in clients {
            try client.sendRequest("GET", "/poll")
        }
        #expect(eventually { server.suspendedConnections == 12 })
        server.stop(answeringPendingWith: .text("bye", status: 503))
        for client in clients {
            let response = try client.readResponse()
            #expect(response.status == 503)
            #expect(response.text == "bye")
        }
        #expect(server.workerCount == 0)
        #expect(server.openConnections == 0)
    }

    @Test func pinnedWorkersEachRunOnOneCPUAndUnpinnedOnesAnywhere() throws {
        let allowed = CPUSet.allowedCPUs()
        for pinned in [true, false] {
            let seen = Shared<[[Int]]>([])
            try withServer(
                {
                    $0.threadPoolSize = 2
                    $0.tuning.pinsWorkers = pinned
                },
                handler: { _, responder in
                    seen.update { $0.append(CPUSet.allowedCPUs()) }
                    responder.respond(.text("ok"))
                }
            ) { server in
                #expect(server.workerCPUs == (pinned ? (0..<2).map { allowed[$0 % allowed.count] } : []))
                let clients = try (0..<6).map { _ in try TestHTTPClient(port: server.port) }
                for client in clients { try client.sendRequest("GET", "/") }
                for client in clients { #expect(try client.readResponse().status == 200) }
            }
            #expect(seen.value.count == 6)
            for cpus in seen.value {
                if pinned {
                    #expect(cpus.count == 1 && allowed.contains(cpus[0]), "a pinned worker may run on \(cpus)")
                } else {
                    #expect(cpus == allowed)
                }
            }
        }
    }
}
