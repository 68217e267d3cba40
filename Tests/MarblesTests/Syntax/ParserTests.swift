import Marbles
import TestSupport
import Testing

private func times(_ diagram: String, kind: MarbleDiagram.Kind = .cold) throws -> [String] {
    try MarbleDiagram.Parser().parse(diagram, kind: kind).map { recorded in
        let frame = Int(recorded.time / .milliseconds(1))
        switch recorded.value {
        case .next(let v): return "\(v)@\(frame)"
        case .completed: return "|@\(frame)"
        case .error: return "#@\(frame)"
        }
    }
}

@Suite("Marble parser")
struct ParserTests {
    @Test("a space that a combining mark joins is one value with it; a dash stays a frame")
    func combiningMarkAfterSpaceOrDash() throws {
        #expect(try times("a \u{301}-|") == ["a@0", " \u{301}@1", "|@3"])
        #expect(try times("a  \u{301}|") == ["a@0", " \u{301}@1", "|@2"])
        #expect(try times("--\u{301}|") == ["\u{301}@2", "|@3"])
    }

    @Test("a grapheme cluster of any length is one value, whatever its bytes")
    func longClusters() throws {
        // 41 and 161 bytes: longer than the scanner's first look (32 bytes), which a two-byte
        // mark straddles at byte 32.
        let zalgo = "a" + String(repeating: "\u{301}", count: 20)
        let longer = "b" + String(repeating: "\u{301}", count: 80)
        #expect(try times("-\(zalgo)-\(longer)|") == ["\(zalgo)@1", "\(longer)@3", "|@4"])
        let family = "👨‍👩‍👧‍👦"
        #expect(try times("\(family)\(family)-|") == ["\(family)@0", "\(family)@1", "|@3"])
        // A cluster that ends where the look ends, with more text after it.
        let exact = "c" + String(repeating: "\u{301}", count: 15) + "d"
        #expect(try times(exact) == ["c" + String(repeating: "\u{301}", count: 15) + "@0", "d@1"])
    }

    @Test("values, frames, completion and errors each cost one frame; spaces cost none")
    func basics() throws {
        #expect(try times("--a-b|") == ["a@2", "b@4", "|@5"])
        #expect(try times("  --a  -b#") == ["a@2", "b@4", "#@5"])
        #expect(try times("a|b") == ["a@0", "|@1", "b@2"])
    }

    @Test("a group stamps its events at '(' and costs one frame per character (RxJS)")
    func groups() throws {
        #expect(try times("--(abc)-|") == ["a@2", "b@2", "c@2", "|@8"])
        #expect(try times("--(ab)-c") == ["a@2", "b@2", "c@7"])
        #expect(try times("(a|)") == ["a@0", "|@0"])
        #expect(try times("-(a 5ms b)-c") == ["a@1", "b@1", "c@11"])
    }

    @Test("a compact group stamps its events at '[' and costs one frame")
    func compactGroups() throws {
        #expect(try times("[ab][cd]e|") == ["a@0", "b@0", "c@1", "d@1", "e@2", "|@3"])
    }

    @Test("time progression is space-delimited and adds exactly its duration")
    func timeProgression() throws {
        #expect(try times("a 9ms b") == ["a@0", "b@10"])
        #expect(try times("a 9ms b 9s c|") == ["a@0", "b@10", "c@9011", "|@9012"])
        #expect(try times("--a 2.5m b") == ["a@2", "b@150003"])
        #expect(try times("10ms a") == ["a@10"])
        #expect(try times("a 5ms") == ["a@0"])
        // Without the spaces the characters are values, as in RxJS.
        #expect(try times("a10ms") == ["a@0", "1@1", "0@2", "m@3", "s@4"])
    }

    @Test("fractional time progressions keep sub-frame precision")
    func fractional() throws {
        let events = try MarbleDiagram.Parser().parse("1.5ms a", kind: .cold)
        #expect(events.first?.time == .microseconds(1500))
    }

    @Test("'^' marks frame 0 counted from the cursor; earlier events are negative")
    func zeroPoint() throws {
        #expect(try times("-a-^-b--|", kind: .hot) == ["a@-2", "b@2", "|@5"])
        #expect(try times("-- ^a|", kind: .hot) == ["a@1", "|@2"])
        #expect(try times("10ms ^a|", kind: .hot) == ["a@1", "|@2"])
        #expect(try times("---^b", kind: .expected) == ["b@1"])
    }

    @Test("quoted values are one value of one frame, with escapes")
    func quotes() throws {
        let events = try MarbleDiagram.Parser().parse("-'hello'-'it\\'s'|", kind: .cold)
        #expect(events.map(\.time) == [.milliseconds(1), .milliseconds(3), .milliseconds(4)])
        #expect(events.compactMap(\.value.element) == ["hello", "it's"])
    }

    @Test("values are looked up in the dictionary; any character or emoji can be a key")
    func valueLookup() throws {
        let events = try MarbleDiagram.Parser().parse("a-🙂-.", kind: .cold, values: ["a": 1, "🙂": 2, ".": 3])
        #expect(events.compactMap(\.value.element) == [1, 2, 3])
        #expect(events.map(\.time) == [.zero, .milliseconds(2), .milliseconds(4)])
    }

    @Test("the error argument is what '#' carries; a default MarbleError otherwise")
    func errorValue() throws {
        struct Custom: Error {}
        let events = try MarbleDiagram.Parser().parse("#", kind: .cold, error: Custom())
        #expect(events.first?.value.error is Custom)
        #expect(try MarbleDiagram.Parser().parse("#", kind: .cold).first?.value.error as? MarbleError == MarbleError())
    }

    @Test("a frame other than 1 ms scales every frame but not time progressions")
    func customFrame() throws {
        let events = try MarbleDiagram.Parser(frame: .milliseconds(10)).parse("-a 5ms b", kind: .cold)
        #expect(events.map(\.time) == [.milliseconds(10), .milliseconds(25)])
    }

    @Test("subscription diagrams: '^' costs a frame, '!' none; groups put both on one frame")
    func subscriptions() throws {
        let parser = MarbleDiagram.Parser()
        #expect(try parser.parseSubscription("^!") == (.zero, .milliseconds(1)))
        #expect(try parser.parseSubscription("---(^!)") == (.milliseconds(3), .milliseconds(3)))
        #expect(try parser.parseSubscription("500ms ^ 1s !") == (.milliseconds(500), .milliseconds(1501)))
        #expect(try parser.parseSubscription("-----") == (nil, nil))
        #expect(try parser.parseSubscription("--!") == (nil, .milliseconds(2)))
    }

    @Test("time() measures up to the first '|'")
    func time() throws {
        #expect(try MarbleDiagram.Parser().time("---|") == .milliseconds(3))
        #expect(try MarbleDiagram.Parser().time("  - - |") == .milliseconds(2))
        #expect(try MarbleDiagram.Parser().time("10ms |") == .milliseconds(10))
        #expect(try MarbleDiagram.Parser().time("(ab)|") == .milliseconds(4))
    }
}

@Suite("Marble syntax errors")
struct SyntaxErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var diagram: String
        var kind: MarbleDiagram.Kind
        var error: MarbleDiagram.SyntaxError.Kind
        var column: Int
        var testDescription: String { "\(diagram) → \(error) at \(column)" }
    }

    static let cases: [Case] = [
        Case(diagram: "--(ab-c", kind: .cold, error: .unclosedGroup, column: 3),
        Case(diagram: "--a)", kind: .cold, error: .unopenedGroup, column: 4),
        Case(diagram: "-(a(b))", kind: .cold, error: .nestedGroup, column: 4),
        Case(diagram: "--()", kind: .cold, error: .emptyGroup, column: 3),
        Case(diagram: "-[]", kind: .cold, error: .emptyGroup, column: 2),
        Case(diagram: "[a-]", kind: .cold, error: .timeInCompactGroup, column: 3),
        Case(diagram: "(a]", kind: .cold, error: .unopenedGroup, column: 3),
        Case(diagram: "--^a|", kind: .cold, error: .zeroInColdDiagram, column: 3),
        Case(diagram: "-^-^", kind: .hot, error: .secondZero, column: 4),
        Case(diagram: "(^a)", kind: .hot, error: .zeroInGroup, column: 2),
        Case(diagram: "--a!", kind: .expected, error: .unsubscribeOutsideSubscriptionDiagram, column: 4),
        Case(diagram: "-'abc", kind: .cold, error: .unterminatedQuote, column: 2),
        Case(diagram: "-''", kind: .cold, error: .emptyQuote, column: 2),
        Case(diagram: "-a|b", kind: .expected, error: .eventAfterTermination, column: 4),
        Case(diagram: "#-#", kind: .expected, error: .eventAfterTermination, column: 3),
        Case(diagram: "a 99999999999999999999ms b", kind: .cold, error: .timeProgressionTooLong("99999999999999999999ms"), column: 3),
    ]

    @Test("each malformed diagram throws its kind at its column", arguments: cases)
    func malformed(_ c: Case) {
        #expect(throws: MarbleDiagram.SyntaxError(c.error, diagram: c.diagram, column: c.column)) {
            try MarbleDiagram.Parser().parse(c.diagram, kind: c.kind)
        }
    }

    @Test("input diagrams may keep events after '|' (RxJS); expected ones may not")
    func eventsAfterTermination() throws {
        #expect(try MarbleDiagram.Parser().parse("a|b", kind: .cold).count == 3)
        #expect(throws: MarbleDiagram.SyntaxError.self) { try MarbleDiagram.Parser().parse("a|b", kind: .expected) }
    }

    @Test("a key missing from a non-empty values dictionary is an error, not a silent undefined")
    func missingValue() {
        #expect(throws: MarbleDiagram.SyntaxError(.missingValue("c"), diagram: "a-c", column: 3)) {
            try MarbleDiagram.Parser().parse("a-c", kind: .cold, values: ["a": 1])
        }
    }

    @Test("a syntax error anywhere is reported before a missing value earlier in the diagram")
    func syntaxErrorBeforeMissingValue() {
        #expect(throws: MarbleDiagram.SyntaxError(.unclosedGroup, diagram: "c-a-(a", column: 5)) {
            try MarbleDiagram.Parser().parse("c-a-(a", kind: .cold, values: ["a": 1])
        }
        #expect(throws: MarbleDiagram.SyntaxError(.missingValue("c"), diagram: "a-c-d-|", column: 3)) {
            try MarbleDiagram.Parser().parse("a-c-d-|", kind: .cold, values: ["a": 1])
        }
    }

    @Test("long diagrams look values up as short ones do: one-character, quoted and missing keys")
    func longDiagramValues() throws {
        let body = String(repeating: "a-b-'ab'-", count: 10)
        let events = try MarbleDiagram.Parser().parse(body + "|", kind: .cold, values: ["a": 1, "b": 2, "ab": 3])
        let values = events.compactMap { if case .next(let v) = $0.value { v } else { nil } }
        #expect(values == Array(repeating: [1, 2, 3], count: 10).flatMap { $0 })
        #expect(throws: MarbleDiagram.SyntaxError(.missingValue("c"), diagram: body + "c|", column: body.count + 1)) {
            try MarbleDiagram.Parser().parse(body + "c|", kind: .cold, values: ["a": 1, "b": 2, "ab": 3])
        }
    }

    @Test("hot times count from '^', values before it negative, in one pass with values looked up")
    func hotTimesWithValues() throws {
        let events = try MarbleDiagram.Parser().parse("a-^-b-|", kind: .hot, values: ["a": 1, "b": 2])
        #expect(events.map(\.time) == [.milliseconds(-2), .milliseconds(2), .milliseconds(4)])
        #expect(events.compactMap { if case .next(let v) = $0.value { v } else { nil } } == [1, 2])
    }

    @Test("subscription diagram errors")
    func subscriptionErrors() {
        let parser = MarbleDiagram.Parser()
        #expect(throws: MarbleDiagram.SyntaxError(.secondSubscribe, diagram: "^-^", column: 3)) { try parser.parseSubscription("^-^") }
        #expect(throws: MarbleDiagram.SyntaxError(.secondUnsubscribe, diagram: "^-!-!", column: 5)) {
            try parser.parseSubscription("^-!-!")
        }
        #expect(throws: MarbleDiagram.SyntaxError(.unsubscribeBeforeSubscribe, diagram: "-!-^", column: 2)) {
            try parser.parseSubscription("-!-^")
        }
        #expect(throws: MarbleDiagram.SyntaxError(.unexpectedSymbolInSubscriptionDiagram("a"), diagram: "^-a", column: 3)) {
            try parser.parseSubscription("^-a")
        }
        #expect(throws: MarbleDiagram.SyntaxError(.unexpectedSymbolInSubscriptionDiagram("5"), diagram: "5ms^", column: 1)) {
            try parser.parseSubscription("5ms^")
        }
        #expect(throws: MarbleDiagram.SyntaxError(.noCompletion, diagram: "---", column: 3)) { try parser.time("---") }
    }

    @Test("the message says what and where, with a caret under the column")
    func message() {
        let error = MarbleDiagram.SyntaxError(.unclosedGroup, diagram: "--(ab-c", column: 3)
        #expect(
            error.description == """
                marble syntax error at line 1, column 3: unclosed group: '(' has no matching ')'
                  --(ab-c
                    ^
                """)
    }

    @Test("random strings never crash the parser: values or a MarbleDiagram.SyntaxError", arguments: [11, 12, 13])
    func fuzz(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let alphabet = Array("-- ab|#()[]^!'\\.1059ms🙂")
        for _ in 0..<3_000 {
            let length = Int(rng.next() % 24)
            let diagram = String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] })
            for kind in [MarbleDiagram.Kind.cold, .hot, .expected] {
                do { _ = try MarbleDiagram.Parser().parse(diagram, kind: kind) } catch {
                    #expect(error.column >= 1 && error.column <= max(diagram.count, 1), "\(diagram): \(error)")
                }
            }
            do { _ = try MarbleDiagram.Parser().parseSubscription(diagram) } catch {
                #expect(error.column >= 1 && error.column <= max(diagram.count, 1), "\(diagram): \(error)")
            }
        }
    }
}
