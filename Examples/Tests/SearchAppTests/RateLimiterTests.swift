import MarbleCore
import MarblesTesting
import SearchApp
import Testing

/// An actor that sleeps its callers with `Task.sleep(nanoseconds:)`.
@Suite("RateLimiter (actor, Task.sleep(nanoseconds:))")
struct RateLimiterTests {
    static func scenario(_ scheduler: TestScheduler) -> MarbleExpectation<String> {
        let limiter = RateLimiter(intervalNanoseconds: 200_000_000)
        let through = PublishSubject<String>()
        let expectation = scheduler.expect(through)
        _ = scheduler.hot("abc------d--|").subscribe(onNext: { name in
            Task {
                await limiter.acquire()
                through.onNext(name)
            }
        })
        return expectation
    }

    @Test("callers go through one per 200 ms, in order; after a quiet spell at once")
    func spacesCallers() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run { Self.scenario(scheduler).toBe("a-b-c----d") }
    }

    @Test("the same timeline in 500 runs")
    func deterministic() {
        let result = timelines(Self.scenario)
        #expect(result.failures.isEmpty && result.timelines.count == 1, "\(result)")
    }
}
