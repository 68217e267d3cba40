import MarbleSpec
import Testing

@Suite("Spec runner")
struct RunnerTests {
    @Test(
        "outputs come from the real operators, including timing and higher-order ones",
        arguments: [
            ("input: -1-2-3|\noperator: filter(x > 1)", "---2-3|"),
            ("input: -1-2-3|\noperator: scan(10, acc + x)", "-a-b-c|"),
            ("input a: -a---b|\ninput b: --1-2--|\noperator: combineLatest", "--x-yz-|"),
            ("input: -a-b----|\noperator: debounce(2)", "-----b--|"),
            ("input: -x-y---|\ninner x: -1-2|\ninner y: -3|\noperator: flatMapLatest", "--1-3--|"),
        ])
    func outputs(spec: String, expected: String) throws {
        let m = try model(spec)
        let labels = m.output.events.map { event -> String in
            switch event.kind {
            case .value(let v): return "\(v)@\(Int(event.frame))"
            case .complete: return "|@\(Int(event.frame))"
            case .error: return "#@\(Int(event.frame))"
            }
        }
        let parsed = try MarbleDiagram.Parser().parse(expected, kind: .expected).map { r -> String in
            let f = Int(r.time / .milliseconds(1))
            switch r.value {
            case .next(let v): return "\(v)@\(f)"
            case .completed: return "|@\(f)"
            case .error: return "#@\(f)"
            }
        }
        #expect(labels.map { $0.split(separator: "@")[1] } == parsed.map { $0.split(separator: "@")[1] }, "\(labels)")
    }

    @Test("an inner event at the frame its operator left is marked by what the run delivered, not by frames")
    func deliveryAtATie() throws {
        // docs/hard-cases/ghosts.marble: y arrives at frame 3, where x's `1` falls; the input's
        // message was scheduled first (at its subscription), so the operator left x before `1`.
        let ghosts = try model(
            """
            input: -x-y-z--------|
            inner x: --1--2--3|
            inner y: --4--5--6|
            inner z: -7--8--9|
            operator: flatMapLatest
            """)
        let inners = ghosts.inputs[0].inners
        #expect(inners.map(\.delivered) == [0, 0, 4])
        #expect(inners[0].events.indices.map(inners[0].isDelivered) == [false, false, false, false])
        #expect(ghosts.output.events.map(\.kind).contains(.value("1")) == false)
        // docs/hard-cases/inner-errors.marble: x's error at frame 5, where y arrives: never delivered.
        let errors = try model(
            """
            input: -x---y-----|
            inner x: -1--#
            inner y: -2---3|
            operator: flatMapLatest
            """)
        let x = errors.inputs[0].inners[0]
        #expect(x.delivered == 1 && !x.isDelivered(1), "the error is drawn faded")
        #expect(errors.output.events.last?.kind == .complete)
    }

    @Test("an inner's events before its operator left are delivered, the one at that frame is not")
    func deliveredBeforeLeaving() throws {
        let m = try model(
            """
            input: x--y----|
            inner x: -1-2|
            inner y: -3|
            operator: flatMapLatest
            """)
        let x = m.inputs[0].inners[0]
        #expect(x.delivered == 1 && x.isDelivered(0) && !x.isDelivered(1))
        #expect(m.output.events.map(\.kind).first == .value("1"))
    }

    @Test(
        "the step limit grows with the inputs' events: 19,000 events through delay settle (they stopped at 20,000 steps, blamed on the operator)"
    )
    func stepLimitGrowsWithEvents() throws {
        let many = "[" + String(repeating: "a", count: 19_000) + "]"
        let m = try model("input: \(many)-|\noperator: delay(1)")
        #expect(m.output.events.count == 19_001)
    }

    @Test("a timeline with more events than a drawing shows is refused at its line, not blamed on the operator")
    func tooManyEvents() {
        let many = "[" + String(repeating: "a", count: 25_000) + "]"
        #expect {
            try model("operator: map(x + \"!\")\ninput: \(many)|")
        } throws: { error in
            let text = "\(error)"
            return text.contains(":2:8: error: this timeline has 25001 events; marblegen draws at most 20000")
                && !text.contains("does not settle")
        }
    }

    @Test("an expression that fails on a value becomes an error event")
    func evaluationError() throws {
        let m = try model("input: -a-|\noperator: map(x * 2)")
        #expect(m.output.events.first?.kind == .error("cannot apply * to \"a\" and 2"))
    }
}
