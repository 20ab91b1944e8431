import Foundation
import HTTPTestClient
import ReMVVMServer
import Testing

extension EndToEnd {
    @Suite("Static files over HTTP")
    struct StaticFileTests {
        @Test(arguments: ["/", "/index.html"])
        func theIndexIsServedAsHTMLWithTheContentSecurityPolicy(path: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let response = try await api.request("GET", path)
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "text/html; charset=utf-8")
                let policy = try #require(response.header("Content-Security-Policy"))
                #expect(policy.contains("default-src 'self'"))
                #expect(policy.contains("script-src 'self'"))
                #expect(policy.contains("frame-ancestors 'none'"))
                #expect(response.header("X-Frame-Options") == "DENY")
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                let file = try String(contentsOfFile: Repository.publicDirectory + "/index.html", encoding: .utf8)
                #expect(response.text == file)
            }
        }

        @Test func scriptsAreServedAsJavaScript() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let response = try await api.request("GET", "/js/main.js")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "text/javascript; charset=utf-8")
                #expect(response.header("Content-Security-Policy") == nil)
                let file = try Data(contentsOf: URL(fileURLWithPath: Repository.publicDirectory + "/js/main.js"))
                #expect(response.body == Array(file))
            }
        }

        @Test func theOpenAPIDescriptionIsServedAsYAML() async throws {
            try await withTestServer { server in
                let api = try server.client()
                let response = try await api.request("GET", "/openapi.yaml")
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "application/yaml")
                #expect(response.text.hasPrefix("openapi: 3.1"))
            }
        }

        @Test(arguments: [
            "/../Package.swift", "/%2e%2e/Package.swift", "/js/%2e%2e/%2e%2e/Package.swift", "/js/../../Package.swift",
            "/%2E%2E/%2E%2E/etc/passwd", "/..%2fPackage.swift", "/.hidden", "/js/nothing.js",
        ])
        func pathsOutsideThePublicFolderOrMissingAre404(path: String) async throws {
            try await withTestServer { server in
                let api = try server.client()
                let response = try await api.request("GET", path)
                #expect(response.status == 404, "\(path)")
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(!response.text.contains("PackageDescription"))
            }
        }

        @Test func symlinksLeadingOutOfThePublicFolderAre404() async throws {
            let manager = FileManager.default
            let sandbox = manager.temporaryDirectory.appendingPathComponent(
                "remvvm-static-\(UInt64.random(in: 0...1 << 62))")
            defer { try? manager.removeItem(at: sandbox) }
            let root = sandbox.appendingPathComponent("public")
            try manager.createDirectory(at: root, withIntermediateDirectories: true)
            try manager.copyItem(
                atPath: Repository.publicDirectory + "/index.html",
                toPath: root.appendingPathComponent("index.html").path)
            try Data("secret".utf8).write(to: sandbox.appendingPathComponent("secret.txt"))
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("leak.txt").path, withDestinationPath: "../secret.txt")
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("outside").path, withDestinationPath: sandbox.path)
            try manager.createSymbolicLink(
                atPath: root.appendingPathComponent("alias.html").path, withDestinationPath: "index.html")
            try await withTestServer(configure: { $0.publicDirectory = root.path }) { server in
                let api = try server.client()
                for path in ["/leak.txt", "/outside/secret.txt"] {
                    let response = try await api.request("GET", path)
                    #expect(response.status == 404, "\(path)")
                    #expect(response.text != "secret")
                }
                // Symlinks whose target is inside the folder are served: only where a file really is counts.
                #expect(try await api.request("GET", "/alias.html").status == 200)
                #expect(try await api.request("GET", "/outside/public/index.html").status == 200)
            }
        }
    }
}
