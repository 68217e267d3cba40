import MarbleCore
import Marbles

// MARK: The marble language: parser and printer

func parserBenchmarks() {
    var diagram = ""
    let unit = "--a-b-(cd)-e 10ms f-"
    while diagram.utf8.count < 1_000_000 { diagram += unit }
    diagram += "|"
    let eventsPerUnit = 6
    let events = diagram.utf8.count / unit.utf8.count * eventsPerUnit + 1
    let parser = MarbleDiagram.Parser()
    let keys = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }
    compare(
        "marble parser, 1 MB diagram", unit: .megabytesPerSecond(diagram.utf8.count),
        [
            Contender("byte scan counting '-'") {
                var dashes = 0
                for b in diagram.utf8 where b == 0x2D { dashes &+= 1 }
                precondition(dashes > 0)
            },
            // The parse's output alone (allocate, fill, free): a floor for any parser that
            // returns `[Recorded<Event<String>>]`.
            Contender("its events appended to an array, no parsing") {
                var out: [Recorded<Event<String>>] = []
                out.reserveCapacity(events)
                var t: Int64 = 0
                for _ in 0..<(events / eventsPerUnit) {
                    out.append(Recorded(time: .nanoseconds(t + 2_000_000), value: .next("a")))
                    out.append(Recorded(time: .nanoseconds(t + 4_000_000), value: .next("b")))
                    out.append(Recorded(time: .nanoseconds(t + 6_000_000), value: .next("c")))
                    out.append(Recorded(time: .nanoseconds(t + 6_000_000), value: .next("d")))
                    out.append(Recorded(time: .nanoseconds(t + 11_000_000), value: .next("e")))
                    out.append(Recorded(time: .nanoseconds(t + 22_000_000), value: .next("f")))
                    t += 24_000_000
                }
                out.append(Recorded(time: .nanoseconds(t), value: .completed))
                precondition(out.count == events)
            },
            Contender("least tokenizer: a pass, an event per letter") {
                precondition(leastTokenizer(diagram, keys: keys, capacity: events).count == events)
            },
            Contender("MarbleDiagram.Parser.parse") {
                let parsed = try! parser.parse(diagram, kind: .cold)
                precondition(parsed.count == events)
            },
        ])
    let small = "--a--b--(cd)--e--|"
    let smallEvents: [(Int64, String)] = [(2_000_000, "a"), (5_000_000, "b"), (8_000_000, "c"), (8_000_000, "d"), (14_000_000, "e")]
    let count = 10_000
    compare(
        "marble parser, one 18-character diagram", unit: .nanoseconds(per: count, "ns/diagram"),
        [
            Contender("copy its bytes into an array") {
                var total = 0
                for _ in 0..<count { total &+= Array(opaque(small).utf8).count }
                precondition(total == count * 18)
            },
            // The output alone, as above.
            Contender("its events appended to an array, no parsing") {
                var total = 0
                for _ in 0..<count {
                    var out: [Recorded<Event<String>>] = []
                    out.reserveCapacity(opaque(small).utf8.count)
                    for (time, key) in smallEvents { out.append(Recorded(time: .nanoseconds(time), value: .next(key))) }
                    out.append(Recorded(time: .milliseconds(17), value: .completed))
                    total &+= out.count
                }
                precondition(total == count * 6)
            },
            Contender("least tokenizer: a pass, an event per letter") {
                var total = 0
                for _ in 0..<count { total &+= leastTokenizer(opaque(small), keys: keys, capacity: 18).count }
                precondition(total == count * 6)
            },
            Contender("MarbleDiagram.Parser.parse") {
                var total = 0
                for _ in 0..<count { total &+= try! parser.parse(opaque(small), kind: .cold).count }
                precondition(total == count * 6)
            },
        ])
    // What every parse pays whatever the diagram: the same floor against the parse of `|`.
    compare(
        "marble parser, fixed cost: the diagram \"|\"", unit: .nanoseconds(per: count, "ns/diagram"),
        [
            Contender("its event appended to an array, no parsing") {
                var total = 0
                for _ in 0..<count {
                    var out: [Recorded<Event<String>>] = []
                    out.reserveCapacity(opaque("|").utf8.count)
                    out.append(Recorded(time: .zero, value: .completed))
                    total &+= out.count
                }
                precondition(total == count)
            },
            Contender("MarbleDiagram.Parser.parse") {
                var total = 0
                for _ in 0..<count { total &+= try! parser.parse(opaque("|"), kind: .cold).count }
                precondition(total == count)
            },
        ])
}

/// The least a tokenizer does: one pass over the bytes through a pointer, one event per letter
/// (not the letters of a `10ms`) at the frame count so far, a completion at `|`; no groups, time
/// progressions, columns or checks. A bound for the parser: its events differ in time only.
@inline(never) func leastTokenizer(_ text: String, keys: [String], capacity: Int) -> [Recorded<Event<String>>] {
    var text = text
    return text.withUTF8 { bytes in
        var out: [Recorded<Event<String>>] = []
        out.reserveCapacity(capacity)
        var frames: Int64 = 0
        var previous: UInt8 = 0
        for byte in bytes {
            if byte == 0x2D {
                frames &+= 1
            } else if byte &- 0x61 < 26 && previous != 0x6D && previous &- 0x30 >= 10 {
                out.append(Recorded(time: .nanoseconds(frames &* 1_000_000), value: .next(keys[Int(byte)])))
            } else if byte == 0x7C {
                out.append(Recorded(time: .nanoseconds(frames &* 1_000_000), value: .completed))
            }
            previous = byte
        }
        return out
    }
}

func printerBenchmarks() {
    let n = 1_000
    // Values at every other frame, a group now and then, one long gap: what recordings look like.
    var events: [Recorded<Event<String>>] = []
    var frame = 0
    for i in 0..<n {
        events.append(Recorded(time: .milliseconds(frame), value: .next(String(UnicodeScalar(UInt8(97 + i % 26))))))
        frame += i % 100 == 99 ? 250 : (i % 10 == 9 ? 0 : 2)
    }
    events.append(Recorded(time: .milliseconds(frame + 1), value: .completed))
    let printer = MarbleDiagram.Printer()
    let expectedText = printer.print(events)
    let reparsed = try! MarbleDiagram.Parser().parse(expectedText, kind: .cold)
    precondition(reparsed.map(\.time) == events.map(\.time), "the printer's output must parse back to the events")
    let repeats = 20
    compare(
        "marble printer, \(n + 1) events", unit: .nanoseconds(per: repeats * (n + 1)),
        [
            Contender("append each label to a String") {
                var total = 0
                for _ in 0..<repeats {
                    var text = ""
                    for event in opaque(events) {
                        if case .next(let value) = event.value { text += value } else { text += "|" }
                        text += "-"
                    }
                    total &+= text.utf8.count
                }
                precondition(total > 0)
            },
            Contender("MarbleDiagram.Printer.print") {
                for _ in 0..<repeats { precondition(printer.print(opaque(events)) == expectedText) }
            },
            Contender("MarbleDiagram.Printer.printAligned, two lines") {
                for _ in 0..<repeats / 2 {
                    precondition(printer.printAligned([opaque(events), events], label: { $0 }).texts[0] == expectedText)
                }
            },
        ])
}
