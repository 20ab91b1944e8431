// remvvm-fuzz: the request-path fuzz target (see ReMVVMFuzzing.RequestFuzzer).
//
// Built by `scripts/fuzz` with `-sanitize=fuzzer,address -DREMVVM_FUZZ`, it is a libFuzzer binary and takes
// libFuzzer's arguments (a corpus folder, -max_total_time=60, ...). In a normal build it replays the input
// files and folders given as arguments once each, so the target always compiles and any crash file can be
// rerun without the fuzzer: `swift run remvvm-fuzz Tests/FuzzCorpus/regressions`.
import Foundation
import ReMVVMFuzzing

#if REMVVM_FUZZ
    import CLibFuzzer

    @_cdecl("LLVMFuzzerTestOneInput")
    func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        RequestFuzzer.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
#else
    let paths = CommandLine.arguments.dropFirst()
    guard !paths.isEmpty else {
        FileHandle.standardError.write(Data("usage: remvvm-fuzz FILE_OR_FOLDER...\n".utf8))
        exit(2)
    }
    var count = 0
    for file in paths.flatMap(RequestFuzzer.inputFiles(at:)) {
        guard let data = FileManager.default.contents(atPath: file) else {
            FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
            exit(1)
        }
        RequestFuzzer.run(Array(data))
        count += 1
    }
    print("replayed \(count) inputs")
#endif
