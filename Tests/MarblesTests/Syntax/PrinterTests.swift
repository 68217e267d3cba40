import Marbles
import TestSupport
import Testing

@Suite("Marble printer")
struct PrinterTests {
    let parser = MarbleDiagram.Parser()
    let printer = MarbleDiagram.Printer()

    @Test(
        "prints the canonical diagram",
        arguments: [
            ("--a-b|", "--a-b|"),
            ("--(abc)-|", "--(abc)-|"),
            ("[ab]c", "[ab]c"),
            ("-'hello'-|", "-'hello'-|"),
            ("a 999ms b", "a 999ms b"),
            ("a 1.5ms b", "a 1.5ms b"),
            ("-(a|)", "-(a|)"),
            ("-'('-", "-'('"),
        ])
    func canonical(input: String, printed: String) throws {
        #expect(printer.print(try parser.parse(input, kind: .cold)) == printed)
    }

    @Test("a one-character value prints bare unless it is a symbol or a control character")
    func oneCharacterValues() throws {
        let symbols = Set(MarbleDiagram.Symbol.allCases.map(\.rawValue))
        for byte in UInt8(0)...0x7F {
            let text = String(UnicodeScalar(byte))
            let printed = printer.print([Recorded(time: .zero, value: .next(text))])
            let bare = !symbols.contains(byte) && byte >= 0x20 && byte != 0x7F
            #expect(printed == (bare ? text : "'\(text == "'" ? "\\'" : text)'"), "byte \(byte)")
            #expect(try parser.parse(printed, kind: .cold) == [Recorded(time: .zero, value: .next(text))], "byte \(byte)")
        }
    }

    @Test("subscription logs print as subscription diagrams")
    func subscriptions() {
        #expect(printer.print(SubscriptionLog(subscribed: .milliseconds(2), unsubscribed: .milliseconds(5))) == "--^--!")
        #expect(printer.print(SubscriptionLog(subscribed: .milliseconds(1), unsubscribed: .milliseconds(1))) == "-(^!)")
        #expect(printer.print(SubscriptionLog(subscribed: .zero)) == "^")
    }

    @Test("parse(print(x)) == x for random recordings", arguments: [1, 2, 3, 4])
    func roundTrip(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let values = ["a", "b", "z", "7", "long value", "it's", "-", "(", "🙂"]
        for _ in 0..<500 {
            var events: [Recorded<Event<String>>] = []
            var time: Int64 = 0
            let count = Int(rng.next() % 12)
            for i in 0..<count {
                // Mostly small gaps, same-frame runs, sometimes long gaps and sub-frame times.
                switch rng.next() % 10 {
                case 0...3: time += 0
                case 4...7: time += Int64(rng.next() % 4) * 1_000_000
                case 8: time += Int64(rng.next() % 500) * 1_000_000
                default: time += 1_000_000 + Int64(rng.next() % 1_000) * 1_000
                }
                let isLast = i == count - 1
                let event: Event<String> =
                    isLast && rng.next() % 2 == 0
                    ? (rng.next() % 2 == 0 ? .completed : .error(MarbleError()))
                    : .next(values[Int(rng.next() % UInt64(values.count))])
                events.append(Recorded(time: .nanoseconds(time), value: event))
            }
            // Events a frame apart need whole frames between them: values cost one frame each.
            guard Self.representable(events) else { continue }
            let printed = printer.print(events)
            let parsed = try parser.parse(printed, kind: .expected)
            #expect(parsed == events, "printed \(printed)")
        }
    }

    /// Every distinct time must be at least one frame after the previous one.
    static func representable(_ events: [Recorded<Event<String>>]) -> Bool {
        let times = Array(Set(events.map(\.time))).sorted()
        return zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= .milliseconds(1) }
    }

    @Test("aligned printing keeps both diagrams parseable and their events in the same columns")
    func aligned() throws {
        let expected = try parser.parse("--a--(bc)--|", kind: .expected)
        let actual = try parser.parse("--a--b--c|", kind: .expected)
        let printed = printer.printAligned([expected, actual], label: { $0 })
        #expect(try parser.parse(printed.texts[0], kind: .expected) == expected)
        #expect(try parser.parse(printed.texts[1], kind: .expected) == actual)
        #expect(printed.columns.map(\.column) == Array(Set(printed.columns.map(\.column))).sorted())
    }
}
