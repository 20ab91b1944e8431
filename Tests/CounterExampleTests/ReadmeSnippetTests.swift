import Foundation
import Testing

/// The README shows files of the repository between `<!-- snippet: PATH -->` and `<!-- end snippet -->`, in a
/// fenced block: each copy must be the file's exact text, so the README's code is code that compiles and is tested.
@Suite struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everySnippetInTheReadmeIsTheFileItNames() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let snippets = try ReadmeSnippet.all(in: readme)
        // scripts/readme-package builds these four as a package outside the repository.
        for path in [
            "Examples/CounterShared/CounterShared.swift", "Examples/Counter/main.swift",
            "Tests/CounterExampleTests/CounterTests.swift",
            "Examples/CounterPackage/Package.swift",
        ] {
            #expect(snippets.contains { $0.path == path }, "the README shows \(path)")
        }
        for snippet in snippets {
            let file = try String(contentsOf: Self.root.appendingPathComponent(snippet.path), encoding: .utf8)
            #expect(snippet.text == file, "README.md's copy of \(snippet.path) differs from the file")
        }
    }

    @Test func aSnippetIsReadFromItsMarkersAndFence() throws {
        let text = "x\n<!-- snippet: a.swift -->\n```swift\nlet a = 1\n\nlet b = 2\n```\n<!-- end snippet -->\ny\n"
        #expect(try ReadmeSnippet.all(in: text) == [ReadmeSnippet(path: "a.swift", text: "let a = 1\n\nlet b = 2\n")])
    }

    @Test(arguments: [
        "<!-- snippet: a.swift -->\nlet a = 1\n<!-- end snippet -->\n",  // No fence.
        "<!-- snippet: a.swift -->\n```swift\nlet a = 1\n<!-- end snippet -->\n",  // Fence not closed.
        "<!-- snippet: a.swift -->\n```swift\nlet a = 1\n```\n",  // No end marker.
    ])
    func aMalformedSnippetIsAnError(text: String) {
        #expect(throws: ReadmeSnippet.Malformed.self) { try ReadmeSnippet.all(in: text) }
    }
}

/// One marked region of the README: the file it shows and the text of its fenced block.
struct ReadmeSnippet: Equatable {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    let path: String
    let text: String

    /// Every region of `markdown`, in order.
    static func all(in markdown: String) throws -> [ReadmeSnippet] {
        let start = "<!-- snippet: "
        var lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var snippets: [ReadmeSnippet] = []
        while let line = lines.popFirst() {
            guard line.hasPrefix(start), line.hasSuffix(" -->") else { continue }
            let path = String(line.dropFirst(start.count).dropLast(" -->".count))
            guard lines.popFirst() == "```swift" else { throw Malformed(description: "\(path): no ```swift fence") }
            guard let close = lines.firstIndex(of: "```") else {
                throw Malformed(description: "\(path): the fence is not closed")
            }
            let body = lines[..<close].map { $0 + "\n" }.joined()
            lines = lines[(close + 1)...]
            guard lines.popFirst() == "<!-- end snippet -->" else {
                throw Malformed(description: "\(path): no <!-- end snippet --> after the fence")
            }
            snippets.append(ReadmeSnippet(path: path, text: body))
        }
        return snippets
    }
}
