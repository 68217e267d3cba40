import Foundation
import MarbleCore
import Marbles
import TestSupport
import Testing

/// The tuned `MarbleDiagram.Parser` against the plain `ReferenceParser`: the same events, or the same
/// error at the same line and column, for random diagrams built from the language's pieces
/// and its awkward corners (clusters, quotes, escapes, time progressions, overflow).
/// `MARBLES_FUZZ_COUNT` raises the count (`make fuzz` runs 10⁶ in release).
@Suite("Reference parser")
struct ReferenceParserTests {
    static let count = (ProcessInfo.processInfo.environment["MARBLES_FUZZ_COUNT"].flatMap(Int.init) ?? 20_000) / 4

    static let pieces = [
        "-", "-", "-", " ", "a", "b", "1", "0", "5", ".", "m", "s", "x", "|", "#", "^", "!", "(", ")", "[", "]", "'", "\\",
        "\u{301}", "é", "\r", "\n", "🙂", "9223372036854775808", "38430716m ", "10ms", " 10ms ", "1.5s", " 2m", " 10xs", "e\u{301}",
        "\r\n", " 1.5.3ms", "'ab'", "'a\\'b'", " 99999999999999999999m", " 0.0000000001s", " 1.123456789123m",
    ]

    /// Events, or the located error.
    static func outcome<T>(_ body: () throws(MarbleDiagram.SyntaxError) -> T) -> String {
        do throws(MarbleDiagram.SyntaxError) {
            return "\(try body())"
        } catch {
            return "error \(error.kind) \(error.line):\(error.column)"
        }
    }

    /// Equal, or the reference found a time overflow (reported where it happens) where the
    /// tuned parser, which notices it lazily, also fails.
    static func agree(tuned: String, reference: String) -> Bool {
        tuned == reference || (reference.hasPrefix("error timeOverflow") && tuned.hasPrefix("error"))
    }

    @Test("the tuned parser reads every diagram as the reference parser does")
    func sameReading() {
        var random = SeededRandom(seed: 31)
        let tuned = MarbleDiagram.Parser()
        let reference = ReferenceParser()
        var differences: [String] = []
        for _ in 0..<Self.count {
            let length = Int.random(in: 0..<12, using: &random)
            let diagram = (0..<length).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            var pairs: [(String, String, String)] = []
            for kind in [MarbleDiagram.Kind.cold, .hot, .expected] {
                pairs.append(
                    (
                        "\(kind)",
                        Self.outcome { () throws(MarbleDiagram.SyntaxError) in try tuned.parse(diagram, kind: kind).map(\.description) },
                        Self.outcome { () throws(MarbleDiagram.SyntaxError) in try reference.parse(diagram, kind: kind).map(\.description) }
                    ))
            }
            pairs.append(
                (
                    "subscription", Self.outcome { () throws(MarbleDiagram.SyntaxError) in try tuned.parseSubscription(diagram) },
                    Self.outcome { () throws(MarbleDiagram.SyntaxError) in try reference.readSubscription(diagram) }
                ))
            pairs.append(
                (
                    "time", Self.outcome { () throws(MarbleDiagram.SyntaxError) in try tuned.time(diagram) },
                    Self.outcome { () throws(MarbleDiagram.SyntaxError) in try reference.readTime(diagram) }
                ))
            for (mode, a, b) in pairs where !Self.agree(tuned: a, reference: b) {
                differences.append("\(mode) \(diagram.debugDescription): tuned \(a), reference \(b)")
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differences, first: \(differences.prefix(5).joined(separator: "\n"))")
    }

    @Test("a diagram whose time overflows before its '|' has no time (it had one: the cursor past the overflow)")
    func timeAfterOverflow() {
        let diagram = "38430716m 38430716m -|"
        #expect(throws: MarbleDiagram.SyntaxError.self) { try MarbleDiagram.Parser().time(diagram) }
        #expect(throws: MarbleDiagram.SyntaxError.self) { try ReferenceParser().readTime(diagram) }
    }
}
