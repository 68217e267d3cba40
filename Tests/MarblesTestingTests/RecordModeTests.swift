import Foundation
import Testing

@testable import MarblesTesting

/// A test source file in a temporary folder, and the location of its `n`-th `toBe(`; the file
/// goes with the fixture (they were left behind in the temporary folder, one per test run).
final class RecordFixture {
    let path: String
    init(_ source: String) throws {
        path = NSTemporaryDirectory() + "RecordFixture-\(UUID().uuidString).swift"
        try source.write(toFile: path, atomically: true, encoding: .utf8)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    var text: String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Where `#line`/`#column` put the `n`-th `toBe(` call: its opening parenthesis.
    func location(ofCall n: Int = 0) -> MarbleFailure.Location {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var seen = 0
        for (index, line) in lines.enumerated() {
            var rest = Substring(line)
            while let range = rest.range(of: "toBe(") {
                if seen == n {
                    let column = line.utf8.distance(from: line.startIndex, to: range.upperBound)
                    return MarbleFailure.Location(fileID: "Tests/Fixture.swift", filePath: path, line: index + 1, column: column)
                }
                seen += 1
                rest = rest[range.upperBound...]
            }
        }
        return MarbleFailure.Location(fileID: "Tests/Fixture.swift", filePath: path, line: 1, column: 1)
    }
}

@Suite("Record mode")
struct RecordModeTests {
    let source = """
        @Test func doubles() {
            scheduler.run {
                scheduler.expect(source.map { $0 * 2 }).toBe("-a-b-|", values: ["a": 2, "b": 4, "c": 6])
                scheduler.expect(subscriptions: source.subscriptions).toBe("^---")
                scheduler.expect(source).toBe("-a-\\(x)|")
            }
        }
        """

    /// A scheduler that collects failures and records into the fixture.
    func recordingScheduler() -> (TestScheduler, MarbleFailure.Collector) {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter, listener: TestScheduler.Listener(recordDiagram: RecordMode.record))
        return (scheduler, reporter)
    }

    @Test("a failing toBe's literal becomes the actual diagram, keyed by values:, and nothing else changes")
    func rewritesLiteral() throws {
        let fixture = try RecordFixture(source)
        let (scheduler, reporter) = recordingScheduler()
        scheduler.run {
            let source = scheduler.cold("-1--3|", values: ["1": 1, "3": 3])
            scheduler.expect(source.map { $0 * 2 })
                .toBe("-a-b-|", values: ["a": 2, "b": 4, "c": 6], at: fixture.location(ofCall: 0))
        }
        #expect(fixture.text == source.replacingOccurrences(of: #"toBe("-a-b-|""#, with: #"toBe("-a--c|""#))
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains(#"record mode: rewrote Tests/Fixture.swift:3: "-a-b-|" → "-a--c|""#) == true)
    }

    @Test("the recorded diagram passes when the test runs again")
    func recordedDiagramPasses() throws {
        let fixture = try RecordFixture(source)
        let (scheduler, _) = recordingScheduler()
        scheduler.run {
            scheduler.expect(scheduler.cold("--x-y|")).toBe("-a-b-|", values: [String: String](), at: fixture.location(ofCall: 0))
        }
        let recorded = try #require(fixture.text.firstMatch(of: /toBe\("([^"]*)"/)?.1)
        let again = TestScheduler(reporter: MarbleFailure.Collector())
        again.run { again.expect(again.cold("--x-y|")).toBe(String(recorded), values: [String: String](), at: fixture.location()) }
        #expect(recorded == "--x-y|")
    }

    @Test("a value with no key in values: gets a free key, added to the values: literal, and the test passes when run again")
    func addsKeyForNewValue() throws {
        let fixture = try RecordFixture(source)
        let (scheduler, reporter) = recordingScheduler()
        scheduler.run {
            scheduler.expect(scheduler.cold("-1-5|", values: ["1": 1, "5": 5]).map { $0 * 2 })
                .toBe("-a-b-|", values: ["a": 2, "b": 4, "c": 6], at: fixture.location(ofCall: 0))
        }
        let expected = source.replacingOccurrences(
            of: #"toBe("-a-b-|", values: ["a": 2, "b": 4, "c": 6])"#, with: #"toBe("-a-d|", values: ["a": 2, "b": 4, "c": 6, "d": 10])"#)
        #expect(fixture.text == expected)
        let message = try #require(reporter.failures.first?.message)
        #expect(
            message.contains(#"record mode: rewrote Tests/Fixture.swift:3: "-a-b-|" → "-a-d|", and added "d": 10 to values:"#), "\(message)"
        )
        let again = TestScheduler(reporter: MarbleFailure.Collector())
        again.run {
            again.expect(again.cold("-1-5|", values: ["1": 1, "5": 5]).map { $0 * 2 })
                .toBe("-a-d|", values: ["a": 2, "b": 4, "c": 6, "d": 10])
        }
        #expect((again.reporter as? MarbleFailure.Collector)?.failures.isEmpty == true)
    }

    @Test(
        "new keys join a values: literal as it is written",
        arguments: [
            (#"toBe("-a-|", values: [:])"#, #"toBe("-a-|", values: ["a": "x"])"#),
            (#"toBe("-a-|", values: ["q": "y"])"#, #"toBe("-a-|", values: ["q": "y", "a": "x"])"#),
            ("toBe(\"-a-|\", values: [\n    \"q\": \"y\",\n])", "toBe(\"-a-|\", values: [\n    \"q\": \"y\", \"a\": \"x\",\n])"),
            (#"toBe("-a-|", values: ["q": "]"], error: E())"#, #"toBe("-a-|", values: ["q": "]", "a": "x"], error: E())"#),
        ])
    func newKeysJoinTheLiteral(written: String, rewritten: String) throws {
        let rewrittenSource = try StringLiteralRewrite.apply(
            to: Array(written.utf8), line: 1, column: 5, written: "-a-|", recorded: "-a-|", newValues: [("a", "\"x\"")])
        #expect(String(decoding: rewrittenSource, as: UTF8.self) == rewritten)
    }

    @Test("a new value with no Swift literal (a struct), or values: that is not a literal, is refused with the reason")
    func refusesWhatCannotBeWritten() throws {
        struct Point: Equatable { var x: Int }
        let fixture = try RecordFixture(source)
        let (scheduler, reporter) = recordingScheduler()
        scheduler.run {
            scheduler.expect(scheduler.cold("-1|", values: ["1": 1]).map { Point(x: $0) })
                .toBe("-a-|", values: ["a": Point(x: 0)], at: fixture.location(ofCall: 0))
        }
        #expect(fixture.text == source)
        #expect(reporter.failures.first?.message.contains("has no Swift literal; give it a key and record again") == true)
        #expect(throws: StringLiteralRewrite.Refusal.self) {
            try StringLiteralRewrite.apply(
                to: Array(#"toBe("-a-|", values: table)"#.utf8), line: 1, column: 5, written: "-a-|", recorded: "-a-|",
                newValues: [("a", "1")])
        }
    }

    @Test("a subscription diagram is recorded too")
    func recordsSubscriptions() throws {
        let fixture = try RecordFixture(source)
        let (scheduler, _) = recordingScheduler()
        scheduler.run {
            let cold = scheduler.cold("--a--|")
            scheduler.expect(cold).toBe("--a--|")
            scheduler.expect(subscriptions: cold.subscriptions).toBe(["^---"], at: fixture.location(ofCall: 1))
        }
        #expect(fixture.text.contains(#".toBe("^----!")"#), "\(fixture.text)")
    }

    @Test("an interpolated literal is refused")
    func refusesInterpolation() throws {
        let fixture = try RecordFixture(source)
        let (scheduler, reporter) = recordingScheduler()
        scheduler.run {
            scheduler.expect(scheduler.cold("-a-b|")).toBe("-a-c|", values: [String: String](), at: fixture.location(ofCall: 2))
        }
        #expect(fixture.text == source)
        #expect(reporter.failures.first?.message.contains("an interpolated string literal is not rewritten") == true)
    }

    @Test(
        "only a plain literal that reads as the diagram is rewritten",
        arguments: [
            (#"toBe(diagram)"#, "the diagram is not a string literal"),
            (#"toBe("-a" + "-|")"#, "a concatenation?"),
            (##"toBe(#"-a-|"#)"##, "a raw string literal"),
            (#"toBe("-b-|")"#, "not written as one plain string literal"),
            (##"toBe("""#"##, "a multi-line string literal"),
        ])
    func refusals(call: String, reason: String) {
        let source = Array("x.\(call)\n".utf8)
        let result = Result { () throws(StringLiteralRewrite.Refusal) -> [UInt8] in
            try StringLiteralRewrite.apply(to: source, line: 1, column: 7, written: "-a-|", recorded: "--a|")
        }
        guard case .failure(let refusal) = result else {
            Issue.record("rewrote \(call)")
            return
        }
        #expect(refusal.reason.contains(reason), "\(refusal.reason)")
    }

    @Test("escapes in the literal are read, and written back escaped")
    func escapes() throws {
        let source = Array(#"x.toBe("-'a\"b'-|", values: v)"#.utf8)
        let rewritten = try StringLiteralRewrite.apply(to: source, line: 1, column: 7, written: #"-'a"b'-|"#, recorded: #"--'a"b'|"#)
        #expect(String(decoding: rewritten, as: UTF8.self) == #"x.toBe("--'a\"b'|", values: v)"#)
    }

    @Test("MARBLES_RECORD=1, true or yes turns it on; anything else, or unset, leaves it off")
    func environment() {
        for value in ["1", "true", "YES"] { #expect(RecordMode.isOn(value), "\(value)") }
        for value in [nil, "", "0", "false", "no", "record"] { #expect(!RecordMode.isOn(value), "\(value ?? "unset")") }
        #expect((TestScheduler().listener.recordDiagram != nil) == RecordMode.isOn)
    }
}
