import Foundation
import Testing

/// `--worker-pinning` on the real `remvvm-server`: the log says where the workers run, and a word other
/// than auto, on or off stops the start with a message naming the option.
@Suite(.serialized) final class WorkerPinningOptionTests {
    let dataDirectory = temporaryPath("pinning")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test(arguments: ["on", "off"])
    func theStartLineSaysWhereTheWorkersRun(mode: String) async throws {
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--durability", "off", "--worker-pinning", mode])
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        let cpus = try #require(line.split(separator: " ").first { $0.hasPrefix("threads.cpus=") })
            .dropFirst("threads.cpus=".count)
        if mode == "on" {
            let list = cpus.split(separator: ",").map { Int($0) }
            #expect(!list.isEmpty && list.allSatisfy { $0 != nil }, "threads.cpus=\(cpus)")
        } else {
            #expect(cpus == "unpinned")
        }
        #expect(try await server.stop() == 0)
    }

    @Test func anUnknownModeIsRefusedByName() async throws {
        do {
            _ = try await ServerProcess.start(
                dataDirectory: dataDirectory, arguments: ["--durability", "off", "--worker-pinning", "sometimes"])
            Issue.record("the server started with --worker-pinning sometimes")
        } catch let error as ServerProcessError {
            #expect(error.description.contains("--worker-pinning must be auto, on or off, not 'sometimes'"))
        }
    }
}
