import Marbles
import MarblesTesting
import Testing

@Suite("The expected diagram as the failure prints it")
struct ExpectedDiagramEchoTests {
    @Test("an expectation with no '|' is printed as written, with no extra '-'")
    func noTrailingDash() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            scheduler.expect(scheduler.cold("e---y-|")).toBe("e---x")
        }
        let message = reporter.failures.map(\.message).joined()
        let expectedLine = message.split(separator: "\n").first { $0.hasPrefix("expected:") }.map(String.init) ?? ""
        #expect(expectedLine == "expected: e---x", "\(message)")
    }
}
