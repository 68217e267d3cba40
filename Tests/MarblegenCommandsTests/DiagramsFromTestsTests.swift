import Foundation
import MarblegenCommands
import MarblesTesting
import TestSupport
import Testing

@Suite("Diagrams from tests")
struct DiagramsFromTestsTests {
    @Test("a checked expectation writes a spec that marblegen renders, failing frames highlighted")
    func failingExpectationWritesSpec() throws {
        let folder = temporaryFolder()
        let writer = DiagramSpecWriter(directory: folder)
        var written: [String] = []
        let scheduler = TestScheduler(
            reporter: MarbleFailure.Collector(),
            listener: TestScheduler.Listener(
                testName: "mapsValues()", expectationChecked: { outcome in if let path = writer.write(outcome) { written.append(path) } }))
        scheduler.run {
            let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 31])
            scheduler.expect(e1.map { $0 + 1 }).toBe("---x--y--|", values: ["x": 3, "y": 4])
        }
        #expect(written.count == 2)
        let failing = try #require(written.first { $0.hasSuffix("-FAILED.marble") })
        #expect(written.contains { !$0.hasSuffix("-FAILED.marble") })
        let text = try String(contentsOfFile: failing, encoding: .utf8)
        #expect(text.contains("title: e1.map { $0 * 10 }"))
        #expect(text.contains("status: failed"))
        #expect(text.contains("hot e1: ---2--3--|"))
        // Values the test's `values:` names are written by its keys; a value none names, as its text.
        #expect(text.contains("values: b = 20, c = 31"), "\(text)")
        #expect(text.contains("actual: ---b--'30'--|"))
        #expect(text.contains("expected: ---b--c--|"))

        let model = try DiagramRunner.run(try DiagramSpec.parse(text, file: failing))
        #expect(model.failed)
        #expect(model.operatorLabel == "e1.map { $0 * 10 }")
        #expect(model.output.highlights == [6])
        var generator = Marblegen()
        generator.formats = [.png]
        let result = generator.render([folder])
        #expect(result.exitCode == 0, "\(result.errors)")
        #expect(FileManager.default.fileExists(atPath: failing.replacingOccurrences(of: ".marble", with: ".png")))
    }

    // Issue 68: the spec wrote `'true''true''false'` where the test said `t` and `f`.
    @Test("a failing expectation's spec writes values by the test's own keys, and renders them as the values")
    func specUsesTheTestsKeys() throws {
        let specs = Self.specs(testName: "loadingFlag()") { scheduler in
            let loading = scheduler.cold("f--t-f|", values: ["f": false, "t": true])
            scheduler.expect(loading).toBe("f--t--f|", values: ["t": true, "f": false])
        }
        let text = try #require(specs.first)
        #expect(text.contains("values: f = false, t = true"), "\(text)")
        #expect(text.contains("input loading: f--t-f|"))
        #expect(text.contains("actual: f--t-f|"))
        #expect(text.contains("expected: f--t--f|"))
        #expect(!text.contains("'true'") && !text.contains("'false'"))
        let model = try DiagramRunner.run(try DiagramSpec.parse(text))
        #expect(
            model.output.events.compactMap { if case .value(let label) = $0.kind { label } else { nil } } == ["false", "true", "false"])
        #expect(model.output.highlights == [5, 6, 7])
    }

    @Test("a key for a value with no spec literal writes the value's text, quoted, escaped and on one line")
    func keyedValuesWithoutLiteralsAreQuotedText() throws {
        struct Price: Equatable, CustomStringConvertible {
            var cents: Int
            var description: String { "$\(cents / 100)\n\"net\"" }
        }
        let specs = Self.specs(testName: "prices()") { scheduler in
            scheduler.expect(scheduler.cold("-a|", values: ["a": Price(cents: 100)])).toBe("-p|", values: ["p": Price(cents: 200)])
        }
        let text = try #require(specs.first)
        #expect(text.contains(#"values: p = "$2 \"net\"""#), "\(text)")
        #expect(throws: Never.self) { try DiagramRunner.run(try DiagramSpec.parse(text)) }
    }

    /// The specs a run's checked expectations write, by the writer the test framework uses.
    static func specs(testName: String, _ body: (TestScheduler) -> Void) -> [String] {
        var specs: [String] = []
        let scheduler = TestScheduler(
            reporter: MarbleFailure.Collector(),
            listener: TestScheduler.Listener(
                testName: testName, expectationChecked: { specs.append(DiagramSpecWriter.spec(for: $0, testName: testName)) }))
        scheduler.run { body(scheduler) }
        return specs
    }

    @Test("a flatMapLatest test's diagram names its inputs as the test does and draws inners from where they were subscribed")
    func higherOrderTestDiagramTellsTheTruth() throws {
        let specs = Self.specs(testName: "switchesToLatest()") { scheduler in
            let first = scheduler.cold("--1--2--3|")
            let second = scheduler.cold("-4|")
            let outer = scheduler.hot("--a------b---|", values: ["a": first, "b": second])
            scheduler.expect(outer.flatMapLatest { $0 }).toBe("----1--2--4--|")
        }
        let text = try #require(specs.first)
        #expect(text.contains("hot outer: --'first'------'second'---|"), "\(text)")
        #expect(text.contains("inner first: --1--2--3|"))
        #expect(text.contains("subscribed first: --^------!"))
        #expect(text.contains("subscribed second: ---------^-!"))
        #expect(!text.contains("e1") && !text.contains("input first"))
        let model = try DiagramRunner.run(try DiagramSpec.parse(text))
        #expect(model.inputs.map(\.name) == ["outer"])
        let inners = model.inputs[0].inners
        // `first` runs from frame 2 (its 1 at frame 4, as the output shows it), cut at frame 9.
        #expect(inners.map(\.start) == [2, 9])
        #expect(inners[0].fadedAfter == 7)
        #expect(model.output.events.first?.frame == 4)
    }

    @Test("name: names a test observable in its diagrams; observables made by a helper are e1, e2")
    func explicitNamesWin() throws {
        func make(_ scheduler: TestScheduler) -> TestScheduler.ColdObservable<String> { scheduler.cold("-a|") }
        let specs = Self.specs(testName: "names()") { scheduler in
            let input = scheduler.cold("-x|", name: "clicks")
            let helper = make(scheduler)
            scheduler.expect(Observable.merge(input, helper)).toBe("-(xa)|")
        }
        let text = try #require(specs.first)
        #expect(text.contains("input clicks: -x|"), "\(text)")
        #expect(text.contains("input e2: -a|"))
    }

    @Test("a failed subscription expectation is drawn as expected against actual brackets, the differing frames marked")
    func subscriptionExpectationDrawsBrackets() throws {
        let specs = Self.specs(testName: "unsubscribesEarly()") { scheduler in
            let source = scheduler.cold("--a--b--c--|")
            scheduler.expect(source.take(2)).toBe("--a--(b|)")
            scheduler.expect(subscriptions: source).toBe("^----!")
            scheduler.expect(subscriptions: source).toBe("^---!")
        }
        let failing = try #require(specs.last)
        #expect(failing.contains("subscribed source: ^----!"), "\(failing)")
        #expect(failing.contains("expected subscribed source: ^---!"))
        let model = try DiagramRunner.run(try DiagramSpec.parse(failing))
        #expect(model.output.name == "subscribed source")
        #expect(model.operatorLabel == "subscriptions: source")
        #expect(model.output.subscriptions == [SubscriptionWindow(start: 0, end: 5)])
        #expect(model.expected?.subscriptions == [SubscriptionWindow(start: 0, end: 4)])
        #expect(model.output.highlights == [4, 5])
        let passing = specs[1]
        #expect(passing.contains("status: passed"))
    }
}
