import Foundation
import Testing

/// `--pin-workers` on the real `remvvm-server`: the start line says where the workers run.
@Suite(.serialized) final class PinWorkersOptionTests {
    let dataDirectory = temporaryPath("pinning")

    deinit {
        try? FileManager.default.removeItem(atPath: dataDirectory)
    }

    @Test(arguments: [true, false])
    func theStartLineSaysWhereTheWorkersRun(pinned: Bool) async throws {
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--durability", "off"] + (pinned ? ["--pin-workers"] : []))
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        let cpus = try #require(line.split(separator: " ").first { $0.hasPrefix("threads.cpus=") })
            .dropFirst("threads.cpus=".count)
        if pinned {
            let list = cpus.split(separator: ",").map { Int($0) }
            #expect(!list.isEmpty && list.allSatisfy { $0 != nil }, "threads.cpus=\(cpus)")
        } else {
            #expect(cpus == "unpinned")
        }
        #expect(try await server.stop() == 0)
    }
}
