import MarblesTesting
import Testing

@Suite struct SmokeTests {
    @Test func mapOfHot() {
        let scheduler = TestScheduler()
        scheduler.run {
            let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            let e2 = scheduler.cold("---x|", values: ["x": 10])
            scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 30])
            scheduler.expect(subscriptions: e1.subscriptions).toBe("^--------!")
            scheduler.expect(e2, unsubscribe: "--!").toBe("---")
        }
    }

    @Test func failureMessage() {
        let reporter = CollectingReporter()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let e1 = scheduler.cold("--a--b--|")
            scheduler.expect(e1.filter { $0 != "b" }).toBe("--a--b--|")
        }
        Issue.record(Comment(rawValue: reporter.failures.map(\.message).joined(separator: "\n\n")))
    }
}
