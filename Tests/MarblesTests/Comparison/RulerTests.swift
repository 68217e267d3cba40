import MarbleCore
import Testing

@testable import Marbles

@Suite("The frame ruler of a failure message")
struct RulerTests {
    /// The failure message of `actual` against `expected`.
    static func message(_ expected: String, _ actual: String) -> String {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run { scheduler.expect(scheduler.cold(actual)).toBe(expected) }
        return reporter.failures.first?.message ?? ""
    }

    @Test("a label at the last column is whole, not cut to the diagrams' width (was `1…` for frame 13)")
    func lastLabelWhole() {
        let lines = Self.message("-------------a|", "-------------b|").split(separator: "\n")
        #expect(lines[1].trimmingCharacters(in: .whitespaces) == "13", "\(lines)")
        #expect(!lines[1].contains("…"))
    }

    @Test("in a long diagram shown through a window, no label is cut at either edge")
    func windowEdges() {
        let long = String(repeating: "-", count: 150)
        let message = Self.message(long + "a|", long + "b|")
        let ruler = message.split(separator: "\n")[1]
        #expect(ruler.contains("150"), "\(message)")
        #expect(!ruler.contains("…"), "\(message)")
        // Every number on the ruler is a frame of the diagrams' columns.
        #expect(ruler.split(separator: " ").allSatisfy { Int($0) != nil }, "\(ruler)")
    }

    @Test("cropping the ruler keeps a label that starts inside the window and drops one that starts before it")
    func cropRuler() {
        let ruler = "0   4    9   13"
        #expect(MarbleComparison.cropRuler(ruler, 0..<14) == "0   4    9   13")
        // Cut on the left, the diagrams start with `…`: the ruler keeps their columns.
        #expect(MarbleComparison.cropRuler(ruler, 10..<15) == "    13")
        #expect(MarbleComparison.cropRuler(ruler, 12..<15) == "  13")
        #expect(MarbleComparison.cropRuler(ruler, 14..<15) == "")
        #expect(MarbleComparison.cropRuler(ruler, 2..<6) == "   4")
    }
}

@Suite("Caret excerpts of long lines")
struct CaretExcerptTests {
    @Test("a short line is shown whole, the caret under its column")
    func short() {
        #expect(CaretExcerpt(line: "-a-%-|", column: 4) == CaretExcerpt(line: "-a-%-|", column: 4, width: 80))
        #expect(CaretExcerpt(line: "-a-%-|", column: 4).text == "-a-%-|")
        #expect(CaretExcerpt(line: "-a-%-|", column: 4).caret == "   ^")
    }

    @Test("a long line is cut around the caret, with … on each cut side, the caret still under its spot")
    func long() {
        let line = String(repeating: "-", count: 1_000) + "%" + String(repeating: "-", count: 1_000)
        let excerpt = CaretExcerpt(line: line, column: 1_001, width: 20)
        #expect(excerpt.text.hasPrefix("…") && excerpt.text.hasSuffix("…"))
        #expect(excerpt.text.count == 22)
        #expect(Array(excerpt.text)[excerpt.caret.count - 1] == "%")
        // At the very end: cut on the left only; the caret may stand one past the last character.
        let end = CaretExcerpt(line: String(repeating: "-", count: 500), column: 501, width: 20)
        #expect(end.text.hasPrefix("…") && !end.text.hasSuffix("…") && end.caret.count == 22)
    }
}
