import Foundation
import Marbles
import TestSupport
import Testing

/// A seeded property test over random marble text and random recordings: the parser never
/// traps and every error is located inside the input; printing then parsing gives back the
/// same events. `MARBLES_FUZZ_COUNT` raises the count (`make fuzz` runs 10⁶ in release).
@Suite("Parser and printer fuzzing")
struct ParserPrinterFuzzTests {
    static let count = ProcessInfo.processInfo.environment["MARBLES_FUZZ_COUNT"].flatMap(Int.init) ?? 20_000
    static let alphabet: [String] = [
        "-", "-", "-", " ", "a", "b", "1", "9", "|", "#", "(", ")", "[", "]", "^", "!", "'", "\\", ".", "m", "s", "ms",
        "\n", "\r\n", "e\u{301}", "🙂", "👍🏽", "日", "9223372036854775808", "38430716m", "1.5", "0", "x",
    ]

    @Test("random marble text parses or fails with a located error, never traps", arguments: [MarbleDiagram.Kind.cold, .hot, .expected])
    func parserNeverTraps(kind: MarbleDiagram.Kind) {
        // A fixed seed per kind: `hashValue` differs between processes.
        let seeds: [MarbleDiagram.Kind: UInt64] = [.cold: 0xC0FFEE, .hot: 0xC0FFEF, .expected: 0xC0FFF0]
        var rng = SeededRandom(seed: seeds[kind] ?? 1)
        let parser = MarbleDiagram.Parser()
        for _ in 0..<Self.count / 3 {
            let length = Int(rng.next() % 16)
            let text = (0..<length).map { _ in Self.alphabet[Int(rng.next() % UInt64(Self.alphabet.count))] }.joined()
            do {
                _ = try parser.parse(text, kind: kind)
                _ = try? parser.parseSubscription(text)
            } catch {
                let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
                #expect(error.line >= 1 && error.line <= max(lines.count, 1), "\(text.debugDescription): \(error)")
                let lineLength = error.line <= lines.count ? lines[error.line - 1].count : 0
                #expect(error.column >= 1 && error.column <= lineLength + 1, "\(text.debugDescription): \(error)")
            }
        }
    }

    @Test("parse(print(x)) == x for random recordings with awkward values and times")
    func roundTrip() throws {
        var rng = SeededRandom(seed: 42)
        let values = ["a", "1", "9", "s", "m", ".", "ms", "\r\n", "e\u{301}", "👍🏽", "'", "\\", "(", "-", " ", "it's", "10ms"]
        let parser = MarbleDiagram.Parser()
        let printer = MarbleDiagram.Printer()
        for _ in 0..<Self.count / 4 {
            var events: [Recorded<Event<String>>] = []
            var time: Int64 = 0
            for _ in 0..<Int(rng.next() % 8) {
                // The language cannot place two events less than a frame apart (each costs a
                // frame), so steps are 0 (same time) or at least one frame.
                let step = rng.next() % 4 == 0 ? 1_000_000 + Int64(rng.next() % 5_000_000) : Int64(rng.next() % 3) * 1_000_000
                time += step
                events.append(Recorded(time: .nanoseconds(time), value: .next(values[Int(rng.next() % UInt64(values.count))])))
            }
            if rng.next() % 2 == 0 { events.append(Recorded(time: .nanoseconds(time + 1_000_000), value: .completed)) }
            let text = printer.print(events)
            let parsed = try parser.parse(text, kind: .cold)
            #expect(parsed == events, "printed \(text.debugDescription)")
            if parsed != events { return }
        }
    }

    @Test("inputs that trapped or misparsed before are located errors now")
    func formerCrashes() {
        let parser = MarbleDiagram.Parser()
        // Digits without a unit are values, one per frame; the overflow no longer traps.
        #expect((try? parser.parse("9223372036854775808", kind: .cold))?.count == 19)
        #expect(throws: MarbleDiagram.SyntaxError.self) { try parser.parse("9223372036854775808ms", kind: .cold) }
        let typo = #expect(throws: MarbleDiagram.SyntaxError.self) { try parser.parse("-- 10xs --a|", kind: .cold) }
        #expect(typo?.kind == .invalidTimeProgression("10xs"))
        #expect(typo?.column == 4)
        let overflow = #expect(throws: MarbleDiagram.SyntaxError.self) {
            try parser.parse("38430716m 38430716m 38430716m 38430716m a 38430716m ^", kind: .hot)
        }
        #expect(overflow?.kind == .timeOverflow)
        #expect(throws: MarbleDiagram.SyntaxError.self) {
            try parser.parse("38430716m 38430716m 38430716m 38430716m 38430716m a", kind: .cold)
        }
    }

    @Test("carets land on the right line and column in multi-line and multi-scalar diagrams")
    func caretPositions() {
        let parser = MarbleDiagram.Parser()
        let multiLine = #expect(throws: MarbleDiagram.SyntaxError.self) { try parser.parse("a\n(b", kind: .cold) }
        #expect(multiLine?.line == 2)
        #expect(multiLine?.column == 1)
        #expect(multiLine?.description.contains("  (b\n  ^") == true)
        let combining = #expect(throws: MarbleDiagram.SyntaxError.self) { try parser.parse("e\u{301}(", kind: .cold) }
        #expect(combining?.column == 2)
    }

    @Test("a digit before m or s prints quoted so it does not read back as a time progression")
    func digitBeforeUnit() throws {
        let events: [Recorded<Event<String>>] = [
            Recorded(time: .zero, value: .next("1")), Recorded(time: .milliseconds(1), value: .next("s")),
        ]
        let text = MarbleDiagram.Printer().print(events)
        #expect(try MarbleDiagram.Parser().parse(text, kind: .cold) == events)
    }

    @Test("long and fractional subscriptions print as time progressions")
    func subscriptionProgressions() throws {
        let printer = MarbleDiagram.Printer()
        let tenMinutes = printer.print(SubscriptionLog(subscribed: .zero, unsubscribed: .seconds(600)))
        #expect(tenMinutes.count < 20)
        let parsed = try MarbleDiagram.Parser().parseSubscription(tenMinutes)
        #expect(parsed.subscribe == .zero && parsed.unsubscribe == .seconds(600))
        let fractional = printer.print(SubscriptionLog(subscribed: .zero, unsubscribed: .microseconds(1_500)))
        #expect(try MarbleDiagram.Parser().parseSubscription(fractional).unsubscribe == .microseconds(1_500))
        let huge = printer.print(SubscriptionLog(subscribed: .seconds(12_700_000), unsubscribed: .seconds(12_700_001)))
        #expect(huge.count < 40)
    }

    @Test("frame numbers are exact integers, far past where floating point drifts")
    func exactFrames() {
        #expect(frameText(.milliseconds(295_149), frame: .milliseconds(1)) == "frame 295149")
        #expect(frameText(.seconds(2_364), frame: .seconds(1)) == "frame 2364")
        #expect(frameText(.microseconds(12_500), frame: .milliseconds(1)) == "frame 12.5")
        #expect(frameText(.milliseconds(-3), frame: .milliseconds(1)) == "frame -3")
    }

    @Test("printing times near Int64.max does not trap")
    func hugeTimes() {
        let events: [Recorded<Event<String>>] = [
            Recorded(time: .nanoseconds(Int64.max - 10), value: .next("a")),
            Recorded(time: .nanoseconds(Int64.max - 10), value: .next("b")),
            Recorded(time: .nanoseconds(Int64.max), value: .completed),
        ]
        #expect(!MarbleDiagram.Printer().print(events).isEmpty)
    }
}
