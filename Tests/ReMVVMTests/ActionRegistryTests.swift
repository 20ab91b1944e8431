import Testing

@_spi(ReMVVMServer) @testable import ReMVVM

/// An action type per number, so a test can register more types than a registry compares by name.
private struct Numbered<let number: Int>: StoreAction, Equatable {
    static var wireName: String { "test/numbered-\(number)" }
}

/// Two types under one wire name, to tell which decoder a registry keeps.
private struct First: StoreAction, Equatable {
    static let wireName = "test/twin"
}

private struct Second: StoreAction, Equatable {
    static let wireName = "test/twin"
}

/// Wire names are found by comparing them in a small registry and by hashing in a large one: both must find
/// every registered type, and only those.
@Suite("Action registry")
struct ActionRegistryTests {
    /// The fixtures' types, and more than a registry compares by name.
    static let large: ActionRegistry = {
        var registry = makeDefinition().actions
        registry.register(Numbered<0>.self)
        registry.register(Numbered<1>.self)
        registry.register(Numbered<2>.self)
        registry.register(Numbered<3>.self)
        registry.register(Numbered<4>.self)
        registry.register(Numbered<5>.self)
        registry.register(Numbered<6>.self)
        registry.register(Numbered<7>.self)
        registry.register(Numbered<8>.self)
        registry.register(Numbered<9>.self)
        registry.register(Numbered<10>.self)
        registry.register(Numbered<11>.self)
        registry.register(Numbered<12>.self)
        registry.register(Numbered<13>.self)
        registry.register(Numbered<14>.self)
        registry.register(Numbered<15>.self)
        registry.register(Numbered<16>.self)
        return registry
    }()

    @Test(arguments: [false, true])
    func everyRegisteredTypeIsFoundAndNoOther(large: Bool) throws {
        let registry = large ? Self.large : makeDefinition().actions
        #expect((registry.wireNames.count > 16) == large)
        for name in registry.wireNames {
            #expect(registry.contains(name))
            #expect(registry.decoder(for: name) != nil, "\(name)")
        }
        let decoded = try registry.decodeActions(from: Array(#"{"type":"test/increment"}"#.utf8))
        #expect(decoded.first as? Increment == Increment())
        if large {
            let numbered = try registry.decodeActions(from: Array(#"{"type":"test/numbered-12"}"#.utf8))
            #expect(numbered.first as? Numbered<12> == Numbered<12>())
        }
        // Unknown, whether its length matches a known name's or not.
        for unknown in ["test/incremenT", "test/incremen", "test/numbered-17", ""] {
            #expect(!registry.contains(unknown))
            #expect(throws: ActionDecodingError.self) {
                try registry.decodeActions(from: Array(#"{"type":"\#(unknown)"}"#.utf8))
            }
        }
    }

    @Test func registeringANameAgainReplacesItsDecoderAndMergingKeepsTheExistingOne() throws {
        let body = Array(#"{"type":"test/twin"}"#.utf8)
        var registry = ActionRegistry()
        registry.register(First.self)
        registry.register(Second.self)
        #expect(registry.wireNames == ["test/twin"])
        #expect(try registry.decodeActions(from: body).first is Second)

        var other = ActionRegistry()
        other.register(First.self)
        other.register(Increment.self)
        registry.merge(other)
        #expect(registry.wireNames == ["test/increment", "test/twin"])
        #expect(try registry.decodeActions(from: body).first is Second)
    }
}
