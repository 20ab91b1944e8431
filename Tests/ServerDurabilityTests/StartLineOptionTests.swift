import Foundation
import Testing

/// Transport options on the real `remvvm-server` (`--pin-workers`, `--no-io-uring`, `--no-answer-batching`):
/// the start line says what is in force.
@Suite(.serialized) final class StartLineOptionTests {
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

    @Test(arguments: [[], ["--no-io-uring"], ["--no-answer-batching"]])
    func theStartLineSaysHowAnswersLeave(options: [String]) async throws {
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--durability", "off"] + options)
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        let answers = try #require(line.split(separator: " ").first { $0.hasPrefix("answers=") })
            .dropFirst("answers=".count)
        switch options.first {
        case "--no-answer-batching": #expect(answers == "unbatched")
        case "--no-io-uring": #expect(answers == "batched")
        default: #expect(answers == "batched" || answers == "batched+io_uring", "answers=\(answers)")
        }
        #expect(try await server.stop() == 0)
    }

    @Test func theStartLineNamesTheAllocatorTheBuildLinks() async throws {
        let server = try await ServerProcess.start(dataDirectory: dataDirectory, arguments: ["--durability", "off"])
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        let shown = try #require(line.split(separator: " ").first { $0.hasPrefix("allocator=") })
        // Release builds link TCMalloc; debug builds, which the tests and the sanitizers use, keep the C library's.
        #if DEBUG
            #expect(shown == "allocator=libc")
        #else
            #expect(shown == "allocator=tcmalloc")
        #endif
        #expect(try await server.stop() == 0)
    }

    @Test(arguments: [nil, "0", "3"])
    func theStartLineSaysHowLongAnAnswerMayWaitToBeResumed(delay: String?) async throws {
        let options = delay.map { ["--max-resume-delay", $0] } ?? []
        let server = try await ServerProcess.start(
            dataDirectory: dataDirectory, arguments: ["--durability", "off"] + options)
        let line = try #require(server.log.split(separator: "\n").first { $0.contains("listening on") })
        let shown = try #require(line.split(separator: " ").first { $0.hasPrefix("resumes.max_delay_ms=") })
        #expect(shown.dropFirst("resumes.max_delay_ms=".count) == Substring(delay ?? "0"))
        #expect(try await server.stop() == 0)
    }
}
