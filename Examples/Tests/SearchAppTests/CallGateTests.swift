import MarbleCore
import MarblesTesting
import SearchApp
import Testing

/// A gate that reads `ContinuousClock.now` itself: inside a run the clock is virtual.
@Suite("CallGate (ContinuousClock.now, nothing injected)")
struct CallGateTests {
    static func scenario(_ scheduler: TestScheduler) -> MarbleExpectation<String> {
        let gate = CallGate(interval: .seconds(1))
        let taps = scheduler.hot("a----b-----c-d-----------e|")
        return scheduler.expect(taps.filter { _ in gate.allow() })
    }

    @Test("a tap within a second of the last one let through is refused")
    func refusesWithinInterval() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run { Self.scenario(scheduler).toBe("a----------c-------------e|") }
    }

    @Test("the same timeline in 500 runs")
    func deterministic() {
        let result = timelines(Self.scenario)
        #expect(result.failures.isEmpty && result.timelines.count == 1, "\(result)")
    }
}
