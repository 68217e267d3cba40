import Foundation
import MarbleSpec
import TestSupport
import Testing

@Suite("Specs with several subscribers, connections and side effects")
struct SubscriberSpecTests {
    func frames(_ t: TimelineModel) -> [Double] { t.events.map(\.frame) }
    func labels(_ t: TimelineModel) -> [String] {
        t.events.map { event in
            switch event.kind {
            case .value(let label): label
            case .complete: "|"
            case .error: "#"
            }
        }
    }

    @Test("each subscriber gets its own timeline, from its ^ to its !, on the diagram's frames")
    func subscribersHaveTimelines() throws {
        let m = try model(
            """
            cold source: --1--2--3--4--5--|
            operator: share
            subscriber A: ^-----------!
            subscriber B: ------^----------
            """)
        #expect(m.output.name == "A")
        #expect(labels(m.output) == ["1", "2", "3", "4"])
        #expect(m.output.lifetime == SubscriptionWindow(start: 0, end: 12))
        let b = try #require(m.moreOutputs.first)
        #expect(b.name == "B")
        #expect(labels(b) == ["3", "4", "5", "|"])
        #expect(frames(b) == [8, 11, 14, 17])
        #expect(b.lifetime == SubscriptionWindow(start: 6, end: nil))
        // One subscription to the source, which every subscriber shares.
        #expect(m.inputs[0].subscriptions == [SubscriptionWindow(start: 0, end: 17)])
    }

    @Test("refCount's source is subscribed once per connection, and drawn as the run played it")
    func refCountResubscribes() throws {
        let m = try model(
            """
            cold source: --1--2--3--4|
            operator: refCount
            subscriber A: -^-----!
            subscriber B: ----^------!
            subscriber C: --------------^---------
            """)
        #expect(m.inputs[0].subscriptions == [SubscriptionWindow(start: 1, end: 11), SubscriptionWindow(start: 14, end: 26)])
        #expect(labels(m.inputs[0]) == ["1", "2", "3", "1", "2", "3", "4", "|"])
        #expect(frames(m.inputs[0]) == [3, 6, 9, 16, 19, 22, 25, 26])
        #expect(labels(m.moreOutputs[1]) == ["1", "2", "3", "4", "|"])
    }

    @Test("a connectable operator shares nothing before its connect line's ^, and stops at its !")
    func publishConnects() throws {
        let m = try model(
            """
            cold source: --1--2--3--4|
            operator: publish
            connect: -^--------!
            subscriber A: ^-------------
            subscriber B: -----^--------
            """)
        #expect(frames(m.output) == [3, 6, 9])
        #expect(labels(m.moreOutputs[0]) == ["2", "3"])
        #expect(m.inputs[0].subscriptions == [SubscriptionWindow(start: 1, end: 10)])
    }

    @Test("a connect line works without subscriber lines: the one output subscribes at the start")
    func connectWithoutSubscribers() throws {
        let m = try model("cold source: --1--2|\noperator: publish\nconnect: -^")
        #expect(labels(m.output) == ["1", "2", "|"])
        #expect(frames(m.output) == [3, 6, 7])
    }

    @Test("subscribers at the connect frame subscribe first: a synchronous source reaches them")
    func subscribersBeforeConnect() throws {
        let m = try model("cold source: (12|)\noperator: publish\nconnect: ^\nsubscriber A: ^")
        #expect(labels(m.output) == ["1", "2", "|"])
    }

    @Test("multicast with a replay subject hands a late subscriber the last values")
    func multicastReplays() throws {
        let m = try model(
            "cold source: --1--2--3--4|\noperator: multicast(replay: 2)\nconnect: ^\nsubscriber A: ^\nsubscriber B: ---------^")
        let b = m.moreOutputs[0]
        #expect(labels(b) == ["2", "3", "4", "|"])
        #expect(frames(b) == [9, 9, 11, 12])
    }

    @Test("expected NAME checks one subscriber, and a failure names it")
    func namedExpectations() throws {
        let spec = """
            cold source: --1--2--3|
            operator: share
            subscriber A: ^
            subscriber B: ----^
            expected A: --1--2--3|
            expected B: --------3|
            """
        let m = try model(spec)
        let message = try #require(m.mismatchMessage)
        #expect(message.hasPrefix("subscriber B:"), "\(message)")
        #expect(!message.contains("subscriber A"))
        #expect(m.expected == nil)
        #expect(m.moreOutputs.map(\.name) == ["B", "expected B"])
        #expect(m.moreOutputs[1].highlights == [5])
        let holds = try model(spec.replacingOccurrences(of: "expected B: --------3|", with: "expected B: -----2--3|"))
        #expect(holds.mismatchMessage == nil)
    }

    @Test("finalize and do draw their side effects on a line of their own")
    func sideEffects() throws {
        let fin = try model("input: --1--2--3--|\noperator: finalize(\"f\")\nsubscriber A: ^----!")
        let line = try #require(fin.moreOutputs.first)
        #expect(line.name == "finalize")
        #expect(labels(line) == ["f"])
        #expect(frames(line) == [5])
        let tapped = try model("input: --1--2|\noperator: do(x * 10)")
        #expect(labels(tapped.output) == ["1", "2", "|"])
        #expect(labels(tapped.moreOutputs[0]) == ["10", "20"])
    }

    @Test("compactMap drops nil, toArray collects, element(at:) picks, dematerialize reads events back")
    func pageOperators() throws {
        #expect(labels(try model("input: -1-n-3|\nvalues: n = nil\noperator: compactMap(x)").output) == ["1", "3", "|"])
        #expect(labels(try model("input: -1-n-3|\nvalues: n = nil\noperator: compactMap(x * 2)").output) == ["2", "#"])
        #expect(labels(try model("input: -1-2-3|\noperator: toArray").output) == ["[1,2,3]", "|"])
        #expect(frames(try model("input: -a-b-c|\noperator: element(at: 2)").output) == [5, 5])
        let events = "input: -x-y-c\nvalues: x = \"next(a)\", y = \"next(7)\", c = \"completed\"\noperator: dematerialize"
        #expect(labels(try model(events).output) == ["a", "7", "|"])
        #expect(labels(try model("input: -x|\nvalues: x = \"error\"\noperator: dematerialize").output) == ["#"])
    }

    @Test("withUnretained completes at the first value after its object is released")
    func withUnretainedReleases() throws {
        let m = try model("input: -a-b-c-d|\noperator: withUnretained(\"vm\", releasedAt: 4)")
        #expect(labels(m.output) == ["(vm, a)", "(vm, b)", "|"])
        #expect(frames(m.output).last == 5)
        let kept = try model("input: -a-b|\noperator: withUnretained(\"vm\")")
        #expect(labels(kept.output) == ["(vm, a)", "(vm, b)", "|"])
    }

    /// Public instance functions of MarbleCore's operators and subjects that are not operators a
    /// diagram shows (subscribing, a subject's input), or whose diagram would repeat its input
    /// (threading on a virtual clock, printing).
    static let notDrawn: Set<String> = ["asObservable", "on", "subscribe", "debug", "observe"]

    @Test("every public operator of MarbleCore has a diagram on its documentation page")
    func everyOperatorHasAPage() throws {
        var documented = Set<String>()
        for name in try FileManager.default.contentsOfDirectory(atPath: galleryFolder.path) where name.hasSuffix(".marble") {
            let spec = try DiagramSpec.parse(String(contentsOf: galleryFolder.appendingPathComponent(name), encoding: .utf8))
            if let symbol = spec.symbol?.split(separator: "/").last?.split(separator: "(").first { documented.insert(String(symbol)) }
        }
        var operators = Set<String>()
        let core = repositoryRoot.appendingPathComponent("Sources/Core")
        let pattern = /public func `?([a-zA-Z]+)`?/
        for folder in ["Operators", "Subjects"] {
            let root = core.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for match in text.matches(of: pattern) { operators.insert(String(match.output.1)) }
            }
        }
        #expect(operators.count > 80)
        let missing = operators.subtracting(documented).subtracting(Self.notDrawn).sorted()
        #expect(missing.isEmpty, "no page diagram for: \(missing)")
    }
}
