import Foundation
import MicroHTTP

/// Serves the web client from one folder, with no way out of it: `..` segments are refused
/// (also when percent-encoded, which the transport has already decoded), and a path whose
/// symlinks lead outside the folder is not found.
struct StaticFiles: Sendable {
    /// The folder, with its symlinks resolved.
    let root: String

    init(root: String) {
        let absolute = URL(fileURLWithPath: root, isDirectory: true).standardizedFileURL
        self.root = absolute.resolvingSymlinksInPath().path
    }

    /// The file to serve for a request path, or nil.
    func resolve(_ path: String) -> (path: String, size: Int)? {
        guard path.hasPrefix("/"), !path.contains("\0"), !path.contains("\\") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.contains(where: { $0 == ".." || $0 == "." || $0.hasPrefix(".") }) else { return nil }
        var candidate = segments.isEmpty ? root : root + "/" + segments.joined(separator: "/")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { candidate += "/index.html" }
        let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
        guard resolved.hasPrefix(root + "/"),
            let attributes = try? FileManager.default.attributesOfItem(atPath: resolved),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = attributes[.size] as? Int
        else { return nil }
        return (resolved, size)
    }

    /// The media type for a file name.
    static func contentType(for path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return switch ext {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "yaml", "yml": "application/yaml"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt": "text/plain; charset=utf-8"
        case "webmanifest": "application/manifest+json"
        default: "application/octet-stream"
        }
    }

    /// What the web client may load: only this server's own scripts, styles and API.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}

extension API {
    /// Serves a file of the public folder for `GET` and `HEAD`.
    func serveFile(_ exchange: Exchange) {
        let request = exchange.request
        guard request.method == "GET" || request.method == "HEAD" else {
            exchange.send(.methodNotAllowed(request.method, allowed: ["GET", "HEAD"]))
            return
        }
        guard let file = files.resolve(request.path) else {
            exchange.send(.notFound("no file at \(request.path)"))
            return
        }
        var headers: HTTPHeaders = [
            "Content-Type": StaticFiles.contentType(for: file.path),
            "Cache-Control": "no-cache",
        ]
        if file.path.hasSuffix(".html") {
            headers["Content-Security-Policy"] = StaticFiles.contentSecurityPolicy
            headers["X-Frame-Options"] = "DENY"
            headers["Referrer-Policy"] = "no-referrer"
        }
        exchange.send(HTTPResponse(status: 200, headers: headers, body: .file(path: file.path, size: file.size)))
    }
}
