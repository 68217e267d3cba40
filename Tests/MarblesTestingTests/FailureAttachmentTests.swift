import Foundation
import Testing

@testable import MarblesTesting

@Suite("Failure attachments")
struct FailureAttachmentTests {
    /// The outcomes a run's failing expectations hand to the attachment hook.
    static func failures(_ body: (TestScheduler) -> Void) -> [ExpectationOutcome] {
        var failed: [ExpectationOutcome] = []
        let scheduler = TestScheduler(
            reporter: MarbleFailure.Collector(),
            listener: TestScheduler.Listener(testName: "scalesPrices()", expectationFailed: { failed.append($0) }))
        scheduler.run { body(scheduler) }
        return failed
    }

    /// The texts of an SVG's `<text>` elements, in order.
    static func texts(in svg: String) -> [String] {
        svg.components(separatedBy: "<text ").dropFirst().compactMap { element in
            guard let open = element.firstIndex(of: ">"), let close = element.range(of: "</text>") else { return nil }
            return String(element[element.index(after: open)..<close.lowerBound])
        }
    }

    @Test("a failing expectation attaches an SVG showing both timelines' values, and the spec marblegen renders")
    func failingExpectationAttachesDiagram() throws {
        let outcomes = Self.failures { scheduler in
            let prices = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(prices.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 31])
        }
        let outcome = try #require(outcomes.first)
        let files = FailureAttachments.files(for: outcome)
        #expect(files.map(\.name) == ["FailureAttachmentTests-scalesPrices-L30.svg", "FailureAttachmentTests-scalesPrices-L30.marble"])
        let svg = files[0].contents
        if let dump = ProcessInfo.processInfo.environment["DUMP_ATTACHMENTS"] {
            for file in files { try file.contents.write(toFile: dump + "/" + file.name, atomically: true, encoding: .utf8) }
        }
        let texts = Self.texts(in: svg)
        // The input by its name in the test, the actual 30 and the expected 31, each where drawn.
        #expect(texts.contains("prices"))
        #expect(texts.contains("actual") && texts.contains("expected"))
        #expect(texts.filter { $0 == "20" }.count == 2)
        #expect(texts.contains("30") && texts.contains("31"))
        // Follows the reader's colour scheme; the differing frame is marked in the highlight colour.
        #expect(svg.contains("prefers-color-scheme: dark"))
        #expect(svg.contains("var(--marbles-highlight)"))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(files[1].contents.contains("values: b = 20, c = 31\n"))
        #expect(files[1].contents.contains("expected: ---b--c--|"))
        #expect(try FailureAttachments.svg(forSpec: files[1].contents) == svg)
    }

    @Test("a passing expectation never reaches the failure hook")
    func passingExpectationPaysNothing() {
        let outcomes = Self.failures { scheduler in
            let source = scheduler.cold("-a-b|")
            scheduler.expect(source.map { $0 }).toBe("-a-b|")
            scheduler.expect(subscriptions: source).toBe("^---!")
        }
        #expect(outcomes.isEmpty)
    }

    @Test("a failing subscription expectation attaches its brackets, expected against actual")
    func subscriptionFailureAttachesBrackets() throws {
        let outcomes = Self.failures { scheduler in
            let source = scheduler.cold("-a-b|")
            scheduler.expect(source.take(1)).toBe("-(a|)")
            scheduler.expect(subscriptions: source).toBe("^---!")
        }
        let outcome = try #require(outcomes.first)
        let files = FailureAttachments.files(for: outcome)
        let svg = try #require(files.first { $0.name.hasSuffix(".svg") }).contents
        #expect(Self.texts(in: svg).contains("subscribed source"))
        #expect(files[1].contents.contains("expected subscribed source: ^---!"))
    }

    @Test("an input is named by the last let or var before its call on that line, never by part of a word")
    func namesFromSource() {
        func name(_ line: String) -> String? {
            let column = line.distance(from: line.startIndex, to: line.range(of: "scheduler.cold")!.lowerBound) + 1
            let location = MarbleFailure.Location(fileID: "T.swift", filePath: "/none", line: 1, column: column)
            return SourceScan.assignedName(at: location, in: [Substring(line)])
        }
        #expect(name("let clicks = scheduler.cold(\"-a|\")") == "clicks")
        #expect(name("var x = 1; let taps: TestScheduler.ColdObservable<String> = scheduler.cold(\"-a|\")") == "taps")
        #expect(name("outlet = scheduler.cold(\"-a|\")") == nil)
        #expect(name("scheduler.expect(scheduler.cold(\"-a|\"))") == nil)
    }

    @Test("MARBLES_ATTACHMENTS=0 (or false, no, off) turns attachments off; unset, they are on")
    func environmentSwitch() {
        #expect(FailureAttachments.isOn(nil))
        #expect(FailureAttachments.isOn("1"))
        for off in ["0", "false", "NO", "off"] { #expect(!FailureAttachments.isOn(off)) }
    }
}
