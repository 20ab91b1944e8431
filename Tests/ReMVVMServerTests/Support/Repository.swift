/// Where the repository's files are, found from this source file's path so tests run from any directory.
enum Repository {
    /// The repository root: three levels above `Tests/ReMVVMServerTests/Support/`.
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    /// The web client's folder, which the server serves at `/`.
    static var publicDirectory: String { root + "/public" }

    /// The OpenAPI description of the HTTP API.
    static var openAPIDescription: String { publicDirectory + "/openapi.yaml" }
}
