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
        let parsed = try MarbleParser().parse(expected, kind: .expected).map { r -> String in
            let f = Int(r.time / .milliseconds(1))
            switch r.value {
            case .next(let v): return "\(v)@\(f)"
            case .completed: return "|@\(f)"
            case .error: return "#@\(f)"
            }
        }
        #expect(labels.map { $0.split(separator: "@")[1] } == parsed.map { $0.split(separator: "@")[1] }, "\(labels)")
    }

    @Test("an expression that fails on a value becomes an error event")
    func evaluationError() throws {
        let m = try model("input: -a-|\noperator: map(x * 2)")
        #expect(m.output.events.first?.kind == .error("cannot apply * to \"a\" and 2"))
    }
}
