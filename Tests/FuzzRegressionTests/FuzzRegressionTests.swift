import Foundation
import ReMVVMFuzzing
import Testing

/// Every input the fuzzer once crashed on, and the seed corpus, through the fuzz target's entry point: a
/// failing check traps, so a regression fails the test run the way it failed the fuzzer.
@Suite("Fuzz corpus replay")
struct FuzzRegressionTests {
    /// `Tests/FuzzCorpus`, found from this file's path.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus").path

    @Test(arguments: ["regressions", "seeds"])
    func everyInputIsAnsweredWithinTheChecks(folder: String) throws {
        let files = RequestFuzzer.inputFiles(at: Self.corpus + "/" + folder)
        // `regressions` is empty until the fuzzer finds something; the seeds are never empty.
        #expect(folder == "regressions" || !files.isEmpty, "no inputs in Tests/FuzzCorpus/\(folder)")
        for file in files {
            let data = try #require(FileManager.default.contents(atPath: file), "cannot read \(file)")
            RequestFuzzer.run(Array(data))
        }
    }
}
