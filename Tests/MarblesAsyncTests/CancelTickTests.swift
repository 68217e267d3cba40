import AsyncAlgorithms
import MarbleCore
import MarblesTesting
import Testing

/// swift-async-algorithms' validation diagrams at a cancel tick (`;`), replayed: the peer cancels
/// the consumer before the tick's sleepers wake, and records what the iteration does at that
/// tick (its end, a value a cancelled sleep lets through). Peer ticks count from 1, frames here
/// from 0 with the subscription at 0: the peer's tick n is frame n here.
@Suite("swift-async-algorithms' validation semantics at a cancel tick")
struct CancelTickTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test(
        "AsyncTimerSequence every 1, 2 and 3 frames: no tick at the cancel, the end there (TestTimer.test_tick1/2/3)",
        arguments: [(1, "-xxxxxxx|"), (2, "--x-x-x-|"), (3, "---x--x-|")])
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func timer(interval: Int, expected: String) {
        let s = TestScheduler()
        s.run {
            let ticks = AsyncTimerSequence(interval: .milliseconds(interval), clock: s.clock).map { _ in "x" }
            s.expect(ticks, unsubscribe: "--------!").toBe(expected)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a value a cancelled sleep lets through at the cancel tick is recorded, then the end (TestTimer.test_tick2_event_skew3)")
    func eventSkew() {
        let s = TestScheduler()
        s.run {
            let clock = s.clock
            let ticks = AsyncTimerSequence(interval: .milliseconds(2), clock: clock).map { _ -> String in
                try? await clock.sleep(until: clock.now.advanced(by: .milliseconds(3)))
                return "x"
            }
            s.expect(ticks, unsubscribe: "----------!").toBe("-----x--x-(x|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("an input cancelled between its values ends at the cancel tick (TestValidationTests.test_cancel_event)")
    func cancelEvent() {
        let s = TestScheduler()
        s.run {
            s.expect(s.cold("-a--b--c--|").values, unsubscribe: "------!").toBe("-a--b-|")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the same with Task.sleep and the default clock")
    func systemClock() {
        let s = TestScheduler()
        s.run {
            let ticks = AsyncTimerSequence(interval: .milliseconds(2), clock: .continuous).map { _ in "x" }
            s.expect(ticks, unsubscribe: "--------!").toBe("--x-x-x-|")
        }
    }
}
