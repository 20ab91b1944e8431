import Foundation

/// The operations and response statuses that `public/openapi.yaml` documents, read line by line.
///
/// Not a YAML parser: it relies on the file's layout (two-space indentation, every path, method and status
/// written inline under `paths:`), which ``OpenAPIDescriptionTests`` checks, so that the tests need no YAML
/// package.
struct OpenAPIDescription: Sendable {
    /// The documented statuses (`"200"`, `"4XX"`, `"default"`) by path template and lower-case method.
    let operations: [String: [String: Set<String>]]
    /// Every line of the file, for structural checks.
    let lines: [String]

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Reads the repository's description.
    static func load() throws -> OpenAPIDescription {
        try OpenAPIDescription(text: String(contentsOfFile: Repository.openAPIDescription, encoding: .utf8))
    }

    /// Reads a description's `paths:` section.
    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var operations: [String: [String: Set<String>]] = [:]
        var inPaths = false
        var path: String?
        var method: String?
        var inResponses = false
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let indent = line.prefix { $0 == " " }.count
            if indent == 0 {
                inPaths = trimmed == "paths:"
                path = nil
                method = nil
                continue
            }
            guard inPaths else { continue }
            let key = Self.key(of: trimmed)
            switch indent {
            case 2:
                path = key
                method = nil
                if let key { operations[key, default: [:]] = [:] }
            case 4:
                method = key.flatMap { Self.methods.contains($0) ? $0 : nil }
                inResponses = false
                if let path, let method { operations[path, default: [:]][method] = [] }
            case 6:
                inResponses = key == "responses"
            case 8 where inResponses:
                if let path, let method, let key { operations[path, default: [:]][method, default: []].insert(key) }
            default:
                break
            }
        }
        self.operations = operations
    }

    /// The mapping key of a `key:` or `key: value` line, without quotes; nil for other lines.
    private static func key(of line: String) -> String? {
        guard !line.hasPrefix("-"), let colon = line.firstIndex(of: ":") else { return nil }
        var key = line[..<colon].trimmingCharacters(in: .whitespaces)
        if key.count >= 2, let first = key.first, first == "'" || first == "\"", key.last == first {
            key = String(key.dropFirst().dropLast())
        }
        return key
    }

    /// Whether the description documents `status` for `method` on `path`, exactly or by a range (`4XX`).
    func documents(method: String, path: String, status: Int) -> Bool {
        guard let statuses = operations[path]?[method.lowercased()] else { return false }
        return statuses.contains(String(status)) || statuses.contains("\(status / 100)XX")
    }

    /// The lower-case methods the description lists for `path`.
    func methods(of path: String) -> Set<String> {
        Set(operations[path]?.keys.map { $0 } ?? [])
    }

    /// Whether the description lists `method` as an operation of `path`.
    func hasOperation(method: String, path: String) -> Bool {
        operations[path]?[method.lowercased()] != nil
    }

    /// Whether an observed answer agrees with the description: a documented status of a documented operation,
    /// or a 405 for a method the description does not list (that is what an unlisted method means).
    func agrees(with exchange: ObservedExchange) -> Bool {
        if exchange.status == 405 {
            return operations[exchange.route] != nil && !hasOperation(method: exchange.method, path: exchange.route)
        }
        return documents(method: exchange.method, path: exchange.route, status: exchange.status)
    }
}
