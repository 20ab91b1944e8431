import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON
import Testing

/// What every answer of the API promises, checked on every response the tests read through ``APIClient``:
/// errors are RFC 9457 problems, and session answers carry their version in the body, `Store-Version` and `ETag`.
enum ResponseContract {
    /// Records an issue for each promise `response` (to `method target`) breaks.
    static func check(_ response: TestResponse, method: String, target: String) {
        let request = "\(method) \(target) -> \(response.status)"
        let isAPI = target.hasPrefix("/v1/")
        if isAPI, response.status < 400 {
            #expect(response.header("Cache-Control") == "no-store", "\(request): session answers are never cached")
        }
        if response.status >= 400, method != "HEAD" {
            checkProblem(response, request: request)
        }
        guard isAPI, [200, 201].contains(response.status),
            response.header("Content-Type") == "application/json", let body = try? response.json()
        else { return }
        if let version = (body["version"] ?? body["to"])?.stringValue {
            #expect(response.storeVersion == version, "\(request): Store-Version must be the body's version")
            #expect(response.header("ETag") == "\"\(version)\"", "\(request): ETag must be the body's version")
        }
    }

    private static func checkProblem(_ response: TestResponse, request: String) {
        #expect(response.header("Content-Type") == "application/problem+json", "\(request): not a problem")
        guard let problem = try? response.json() else {
            Issue.record("\(request): the problem is not JSON: \(response.text)")
            return
        }
        #expect(problem["type"]?.stringValue?.isEmpty == false, "\(request): problem without type")
        #expect(problem["title"]?.stringValue?.isEmpty == false, "\(request): problem without title")
        #expect(problem["status"] == .int(Int64(response.status)), "\(request): problem status differs")
        #expect(problem["detail"]?.stringValue?.isEmpty == false, "\(request): problem without detail")
        if let current = problem["currentVersion"]?.stringValue {
            #expect(response.storeVersion == current, "\(request): Store-Version must be currentVersion")
        }
    }
}
