// Generated from README.md (the block at line 51) by scripts/code-blocks.py: edit the
// document, then run `make code-blocks`.
// swift-format-ignore-file
import MarblesTesting
import Testing

@Test func multipliesByTen() {
    let scheduler = TestScheduler()
    scheduler.run {
        let e1 = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
        let e2 = scheduler.cold("---x|", values: ["x": 10])
        scheduler.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 30])
        scheduler.expect(subscriptions: e1.subscriptions).toBe("^--------!")
        scheduler.expect(e2, unsubscribe: "--!").toBe("---")
    }
}
