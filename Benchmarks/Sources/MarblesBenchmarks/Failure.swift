@_spi(Benchmarks) import MarblesTesting

// What a failing test's picture costs (issue 52): the 10-event marble test of `small-test`,
// failing at its last value, with the failure only reported, then with the SVG and the spec a
// test attaches drawn too; and the passing test with the drawing hook installed, which must
// cost nothing.
func failureDiagramBenchmarks() {
    let input = String(repeating: "a-", count: 10) + "|"
    let expected = String(repeating: "b-", count: 9) + "c-|"
    let passing = String(repeating: "b-", count: 10) + "|"
    let tests = 200
    var bytes = 0
    /// `tests` runs of the test against `diagram`, each on a fresh scheduler that draws the
    /// failure's picture when `drawing`.
    func run(_ diagram: String, failing: Bool, drawing: Bool) {
        for _ in 0..<tests {
            let collector = MarbleFailure.Collector()
            let scheduler =
                drawing ? TestScheduler.drawingFailures(reporter: collector) { bytes += $0 } : TestScheduler(reporter: collector)
            scheduler.run {
                let source = scheduler.cold(input, values: ["a": 1])
                scheduler.expect(source.map { $0 + 1 }).toBe(diagram, values: ["b": 2, "c": 3])
            }
            precondition(collector.failures.isEmpty != failing, "\(collector.failures)")
        }
    }
    compare(
        "a 10-event marble test: failing, with and without its attached picture (per test)", unit: .microseconds(per: tests),
        [
            Contender("failing, reported") { run(expected, failing: true, drawing: false) },
            Contender("failing, reported, SVG and spec drawn") { run(expected, failing: true, drawing: true) },
            Contender("passing") { run(passing, failing: false, drawing: false) },
            Contender("passing, drawing hook installed") { run(passing, failing: false, drawing: true) },
        ])
    precondition(bytes > 0)
}
