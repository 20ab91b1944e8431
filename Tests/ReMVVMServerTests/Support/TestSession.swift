import HTTPTestClient
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

/// A session as `POST /v1/sessions` created it: its id, token and first version and views.
struct TestSession: Sendable {
    let id: String
    let token: String
    /// The version at creation.
    let version: String
    /// The views at creation.
    let views: JSONValue
    /// The creation answer itself.
    let response: TestResponse

    /// The `Authorization` header that proves ownership.
    var bearer: (String, String) { ("Authorization", "Bearer \(token)") }

    /// The session's resource path.
    var path: String { "/v1/sessions/\(id)" }

    /// The history half of every cursor of this session (`<epoch>.<n>`).
    var epoch: String { String(version.prefix { $0 != "." }) }

    /// The version `n` of this session's history, as a cursor.
    func cursor(_ number: UInt64) -> String { "\(epoch).\(number)" }

    /// The numeric half of a cursor; nil if malformed.
    static func number(of cursor: String) -> UInt64? {
        cursor.split(separator: ".").last.flatMap { UInt64($0) }
    }
}
