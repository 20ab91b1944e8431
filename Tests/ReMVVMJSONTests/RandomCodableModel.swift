import Foundation

/// A nested `Codable` model filled from a seeded generator, so encode/decode round trips cover thousands of
/// values nobody would write by hand.
///
/// It leaves out what cannot round-trip through `JSONValue` by design: `Date` (the encoder writes seconds since
/// 1970, `JSONDecoder`'s default reads seconds since 2001), unsigned integers above `Int64.max` (a `JSONValue`
/// holds them as rounded doubles) and `Int??` (synthesized `Codable` turns `.some(nil)` into `nil`).
struct RandomCodableModel: Codable, Equatable, Sendable {
    enum Kind: String, Codable, Sendable, CaseIterable, CodingKeyRepresentable {
        case alpha, beta, gamma
    }

    enum Payload: Codable, Equatable, Sendable {
        case none
        case count(Int)
        case point(x: Double, y: Double)
        case tagged(String, weights: [Float]?)
        case nested(RandomCodableModel.Leaf)
    }

    struct Leaf: Codable, Equatable, Sendable {
        var label: String
        var amount: Decimal?
        var bytes: Data
    }

    var id: Int
    var name: String
    var flag: Bool?
    var small: Int8
    var medium: Int16?
    var unsigned: UInt32
    var wide: Int64
    var big: UInt64
    var ratio: Double
    var single: Float
    var tags: [String]
    var scores: [String: Double]
    var names: [Int: String]
    var byKind: [Kind: Int]
    var holes: [Int?]
    var link: URL?
    var payload: Payload
    var children: [RandomCodableModel]

    /// A random model nested at most `depth` levels.
    static func random(using generator: inout SeededGenerator, depth: Int = 2) -> RandomCodableModel {
        RandomCodableModel(
            id: Int.random(in: .min ... .max, using: &generator),
            name: randomString(using: &generator),
            flag: Bool.random(using: &generator) ? Bool.random(using: &generator) : nil,
            small: Int8.random(in: .min ... .max, using: &generator),
            medium: Bool.random(using: &generator) ? Int16.random(in: .min ... .max, using: &generator) : nil,
            unsigned: UInt32.random(in: .min ... .max, using: &generator),
            wide: Int64.random(in: .min ... .max, using: &generator),
            big: UInt64.random(in: 0...UInt64(Int64.max), using: &generator),
            ratio: randomDouble(using: &generator),
            single: Float.random(in: -1e6...1e6, using: &generator),
            tags: (0..<Int.random(in: 0...3, using: &generator)).map { _ in randomString(using: &generator) },
            scores: Dictionary(
                (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    (randomString(using: &generator), randomDouble(using: &generator))
                },
                uniquingKeysWith: { first, _ in first }
            ),
            names: Dictionary(
                (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    (Int.random(in: -1000...1000, using: &generator), randomString(using: &generator))
                },
                uniquingKeysWith: { first, _ in first }
            ),
            byKind: Dictionary(
                Kind.allCases.filter { _ in Bool.random(using: &generator) }.map {
                    ($0, Int.random(in: -5...5, using: &generator))
                },
                uniquingKeysWith: { first, _ in first }
            ),
            holes: (0..<Int.random(in: 0...4, using: &generator)).map { _ in
                Bool.random(using: &generator) ? Int.random(in: -9...9, using: &generator) : nil
            },
            link: links.randomElement(using: &generator) ?? nil,
            payload: randomPayload(using: &generator),
            children: depth > 0
                ? (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                    random(using: &generator, depth: depth - 1)
                }
                : []
        )
    }

    private static let strings = ["", "x", "hello", "quote\"", "back\\slash", "line\nbreak", "\u{1}", "日本", "🎉"]
    private static let links: [URL?] = [nil, URL(string: "https://example.com/a?b=c#d"), URL(string: "/relative")]

    private static let extremes = [0, -0.0, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude]

    private static func randomString(using generator: inout SeededGenerator) -> String {
        strings.randomElement(using: &generator) ?? ""
    }

    /// Mostly arbitrary doubles, sometimes integral ones (which `JSONEncoder` writes without a fraction) and
    /// extremes.
    private static func randomDouble(using generator: inout SeededGenerator) -> Double {
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: Double(Int.random(in: -1000...1000, using: &generator))
        case 1: extremes.randomElement(using: &generator) ?? 0
        default: Double.random(in: -1e9...1e9, using: &generator)
        }
    }

    private static func randomData(using generator: inout SeededGenerator) -> Data {
        Data((0..<Int.random(in: 0...6, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    private static func randomPayload(using generator: inout SeededGenerator) -> Payload {
        switch Int.random(in: 0..<5, using: &generator) {
        case 0: .none
        case 1: .count(Int.random(in: -100...100, using: &generator))
        case 2: .point(x: randomDouble(using: &generator), y: randomDouble(using: &generator))
        case 3:
            .tagged(
                randomString(using: &generator),
                weights: Bool.random(using: &generator)
                    ? (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                        Float.random(in: -10...10, using: &generator)
                    }
                    : nil
            )
        default:
            .nested(
                Leaf(
                    label: randomString(using: &generator),
                    amount: Bool.random(using: &generator)
                        ? Decimal(Int.random(in: -100_000...100_000, using: &generator)) / 100 : nil,
                    bytes: randomData(using: &generator)
                )
            )
        }
    }
}
