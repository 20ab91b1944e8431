import Testing

@testable import ReMVVMPersistence

/// What a node writes, from the versions the live nodes read: the lowest of each, its own once all read it.
@Suite struct WriteFormatTests {
    static let own = NodeVersions(node: "v2", stateVersion: 2, actionVersions: ["counter/set": 2, "chat/post": 3])

    @Test(arguments: [
        ([own], WriteFormat()),
        (
            [own, NodeVersions(node: "v1", stateVersion: 1, actionVersions: [:])],
            WriteFormat(stateVersion: 1, actionVersions: ["counter/set": 1, "chat/post": 1])
        ),
        (
            [own, NodeVersions(node: "v1.5", stateVersion: 2, actionVersions: ["chat/post": 2])],
            WriteFormat(stateVersion: nil, actionVersions: ["counter/set": 1, "chat/post": 2])
        ),
        // A node of a newer build changes nothing of what this one writes.
        (
            [own, NodeVersions(node: "v3", stateVersion: 3, actionVersions: ["counter/set": 4, "chat/post": 3])],
            WriteFormat()
        ),
        // No node listed (the storage could not say): this node's own.
        ([], WriteFormat()),
    ])
    func theLowestVersionEveryLiveNodeReads(live: [NodeVersions], expected: WriteFormat) {
        #expect(WriteFormat.readable(by: live, own: Self.own) == expected)
        #expect(expected.isNewest == (expected == WriteFormat()))
    }
}
