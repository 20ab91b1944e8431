/// A response as the test client parsed it.
struct TestResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of header `name`, any case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Every value of header `name`, any case, in order.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}
