import ExampleApp
import Foundation
import Logging
import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import ReMVVMServer
import Synchronization

/// The fuzz target: one input through the server's request path and its parsers, with the checks that turn a
/// wrong answer into a crash libFuzzer keeps.
///
/// `remvvm-fuzz` calls ``run(_:)`` for every input libFuzzer makes, and the regression test for every file of
/// `Tests/FuzzCorpus/regressions/`. Each input gets a fresh session of the example app, on one server that is
/// never started (no sockets): the input, read as a ``FuzzRequest``, is handled as libmicrohttpd's threads would
/// handle it, parked long-polls are answered at once, and the session is deleted.
public enum RequestFuzzer {
    /// The example app's server, never started; the public folder is `REMVVM_PUBLIC_DIR` or `public`.
    static let server: StoreServer = {
        var configuration = ServerConfiguration()
        configuration.port = 0
        if let directory = ProcessInfo.processInfo.environment["REMVVM_PUBLIC_DIR"], !directory.isEmpty {
            configuration.publicDirectory = directory
        }
        let quiet = Logger(label: "remvvm.fuzz") { _ in SwiftLogNoOpLogHandler() }
        return StoreServer(ExampleApp.definition(), configuration: configuration, logger: quiet)
    }()

    static let actions = ExampleApp.definition().actions

    /// Runs one input; traps (so libFuzzer reports a crash) when an answer breaks one of the checks.
    public static func run(_ data: [UInt8]) {
        fuzzParsers(data)
        let session = createSession()
        let input = FuzzRequest(
            data,
            substituting: [("{id}", session.id), ("{token}", session.token), ("{version}", session.version)])
        let response = answer(input.request)
        check(response, to: input, session: session)
        let deleted = answer(
            HTTPRequest(
                method: "DELETE", path: "/v1/sessions/\(session.id)",
                headers: ["Authorization": "Bearer \(session.token)"]
            ))
        // The input may have deleted the session itself.
        require(deleted.status == 204 || deleted.status == 404, "DELETE answered \(deleted.status)")
    }

    /// The parsers on the raw input: action decoding and cursors.
    private static func fuzzParsers(_ data: [UInt8]) {
        _ = try? actions.decodeActions(from: data)
        let text = String(decoding: data, as: UTF8.self)
        if let cursor = Cursor(parsing: text) {
            // What the parser accepts is what the server writes: it reads back the same, in plain ASCII.
            require(Cursor(parsing: cursor.description) == cursor, "cursor \(cursor) does not read back")
            require(cursor.description.utf8.allSatisfy { $0 < 128 }, "cursor \(cursor) is not ASCII")
        }
        if let tag = Cursor(entityTag: text) { require(Cursor(parsing: text) == tag, "entity tag \(tag) differs") }
        fuzzSerializedDiff(data)
    }

    /// The byte differ on the input's two halves: whatever it accepts gives a valid patch, and between two
    /// documents in the serializer's own form, one that leads from the first to the second.
    private static func fuzzSerializedDiff(_ data: [UInt8]) {
        let old = Array(data.prefix(data.count / 2))
        let new = Array(data.dropFirst(data.count / 2))
        guard let bytes = JSONPatch.serializedDiff(fromSerialized: old, to: new) else { return }
        guard let patch = try? JSONPatch(parsing: JSONValue(parsing: bytes)) else {
            require(false, "serializedDiff wrote an invalid patch: \(String(decoding: bytes, as: UTF8.self))")
            return
        }
        guard let oldValue = try? JSONValue(parsing: old), oldValue.serialized() == old,
            let newValue = try? JSONValue(parsing: new), newValue.serialized() == new
        else { return }
        require((try? patch.apply(to: oldValue)) == newValue, "serializedDiff's patch does not lead to the new value")
    }

    private struct CreatedSession {
        let id: String
        let token: String
        let version: String
    }

    private static func createSession() -> CreatedSession {
        let response = answer(HTTPRequest(method: "POST", path: "/v1/sessions"))
        guard response.status == 201, case .bytes(let body) = response.body, let json = try? JSONValue(parsing: body),
            case .string(let id)? = json["id"], case .string(let token)? = json["token"],
            case .string(let version)? = json["version"]
        else { fatalError("POST /v1/sessions answered \(response.status)") }
        return CreatedSession(id: id, token: token, version: version)
    }

    /// Handles a request in-process and returns its one answer; parked long-polls are answered at once.
    private static func answer(_ request: HTTPRequest) -> HTTPResponse {
        let answers = Mutex<[HTTPResponse]>([])
        let responder = Responder { response in answers.withLock { $0.append(response) } }
        server.handle(request, responder: responder)
        if !responder.isAnswered { server.answerParkedPolls() }
        let all = answers.withLock { $0 }
        require(all.count == 1, "\(request.method) \(request.path) got \(all.count) answers")
        return all[0]
    }

    /// What every answer must be, whatever the request.
    private static func check(_ response: HTTPResponse, to input: FuzzRequest, session: CreatedSession) {
        let request = input.request
        let label = "\(request.method) \(request.path) -> \(response.status)"
        require((200..<600).contains(response.status), "\(label): not a final status")
        require(response.status != 500, "\(label): an internal error")
        require(response.headers["X-Content-Type-Options"] == "nosniff", "\(label): no nosniff")
        switch response.body {
        case .bytes(let body):
            let type = response.headers["Content-Type"] ?? ""
            if type.hasPrefix("application/json") || type.hasPrefix("application/problem+json") {
                require((try? JSONValue(parsing: body)) != nil, "\(label): the JSON body does not parse")
            }
        case .file(let path, _):
            require(path.hasPrefix(server.publicDirectory + "/"), "\(label): serves \(path) from outside public/")
        case .stream:
            require(response.status == 200, "\(label): a stream with another status")
        }
        // A session route answers with success only to a request that carries the session's token.
        let sessionRoute = request.path.hasPrefix("/v1/sessions/") && request.path.count > "/v1/sessions/".count
        if sessionRoute, !input.head.contains(session.token), (200..<300).contains(response.status) {
            require(
                response.status == 204 && request.path.hasSuffix("/events"), "\(label): succeeded without the token")
        }
    }

    private static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz check failed: \(message())") }
    }
}

extension RequestFuzzer {
    /// The input files at `path`: the file itself, or the regular files of the folder (not hidden ones), sorted.
    public static func inputFiles(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [path] }
        guard isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { path + "/" + $0 }.filter { file in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) && !isFolder.boolValue
        }
    }
}
