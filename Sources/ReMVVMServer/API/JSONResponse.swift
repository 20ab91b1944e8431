import MicroHTTP
@_spi(ReMVVMServer) import ReMVVM
import ReMVVMJSON

extension HTTPResponse {
    /// A JSON answer.
    static func json(_ status: Int = 200, _ body: JSONValue, headers: HTTPHeaders = [:]) -> HTTPResponse {
        json(status, body.serialized(), headers: headers)
    }

    /// A JSON answer from serialized bytes.
    static func json(_ status: Int = 200, _ bytes: [UInt8], headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: .bytes(bytes))
    }
}
