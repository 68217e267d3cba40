import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Testing

// Issue 58's parallel suite, as users run theirs: main-actor models whose answers come back from
// other threads, a main-queue debouncer, async marble tests waiting on other threads, and plain
// tests that sleep for real, side by side. `make test` runs it with the rest; `make stress-mixed`
// runs it again and again; CI runs it under ThreadSanitizer and AddressSanitizer.

/// A continuation resumed by a global queue's timer, 500 ms later.
private func answeredAfterGlobalTimer() async -> Int {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(500)) { continuation.resume(returning: 42) }
    }
}

#if os(Linux)
    @Suite("Mixed parallel suite")
    struct MixedParallelSuite {
        /// Every main-actor row of issue 58: the first kind and the main-queue debouncer 100 times
        /// each, the others 20.
        static let mainActorCases: [(MainActorReturns, Int)] = MainActorReturns.allCases.flatMap { row in
            (0..<([.continuation, .workItemDebouncer].contains(row) ? 100 : 20)).map { (row, $0) }
        }

        @MainActor
        @Test("main-actor models answered from other threads", arguments: mainActorCases)
        func mainActor(_ row: MainActorReturns, _ run: Int) {
            let messages = row.failures()
            #expect(messages.isEmpty, "\(messages)")
        }

        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test("async marble test waiting on DispatchQueue.global().asyncAfter", arguments: 0..<60)
        func globalTimer(_ run: Int) {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.run {
                scheduler.expect(emitting: Int.self) { emit in emit(await answeredAfterGlobalTimer()) }
                    .toBe("-----(a|)", values: ["a": 42])
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
        }

        /// Issue 59's timers beside the rest: a run-loop countdown on the main run loop and a
        /// main-queue Dispatch timer source, in a test on the main actor.
        @MainActor
        @Test(
            "main-actor timers: a run-loop countdown and a main-queue timer source", .noPortabilityWarning, arguments: 0..<40)
        func mainActorTimers(_ run: Int) {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            var countdown: Countdown?
            var sourceTicks: [Duration] = []
            scheduler.run {
                countdown = Countdown(from: 3)
                countdown?.start(every: 0.2, on: .main)
                let source = DispatchSource.makeTimerSource(queue: .main)
                source.setEventHandler {
                    MainActor.assumeIsolated { sourceTicks.append(scheduler.now) }
                    if sourceTicks.count == 2 { source.cancel() }
                }
                source.schedule(deadline: .now() + .milliseconds(300), repeating: .milliseconds(300))
                source.resume()
            }
            #expect(countdown?.ticks == [.milliseconds(200), .milliseconds(400), .milliseconds(600)])
            #expect(sourceTicks == [.milliseconds(300), .milliseconds(600)])
        }

        /// Issue 67's bubble beside the rest: the six blocking waits on workers, on virtual time.
        @Test("blocking waits on workers, on virtual time", arguments: 0..<30)
        func blockingWaits(_ run: Int) {
            let shape = OneBubbleTestsSupport.blockingWaits[run % OneBubbleTestsSupport.blockingWaits.count]
            let (elapsed, failures) = OneBubbleTestsSupport.virtualTime(of: shape.work)
            #expect(elapsed == shape.takes && failures.isEmpty, "\(shape.name): \(String(describing: elapsed)) \(failures)")
        }

        @Test("a plain test whose semaphore, condition and sleep wait for real", arguments: 0..<20)
        func realWaits(_ run: Int) {
            let start = ContinuousClock.now
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(3))
            let condition = NSCondition()
            condition.lock()
            _ = condition.wait(until: Date().addingTimeInterval(0.003))
            condition.unlock()
            usleep(3_000)
            #expect(ContinuousClock.now - start >= .milliseconds(9))
        }

        @Test("a plain test that sleeps for real", arguments: 0..<50)
        func realSleep(_ run: Int) async throws {
            let start = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(5 + run % 7))
            usleep(2_000)
            #expect(ContinuousClock.now - start >= .milliseconds(5))
        }
    }
#endif
