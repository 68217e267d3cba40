import Foundation
import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles
@testable import MarblesRuntime

/// `Task.sleep` and the system clocks' sleeps, in code that was never given a clock, run on
/// the test scheduler's virtual time.
@Suite("Task.sleep on virtual time")
struct TaskSleepTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("every way of sleeping on the system clocks wakes at its virtual frame")
    func everySleepForm() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                try await Task.sleep(for: .milliseconds(300))
                emit("a")
                try await Task.sleep(nanoseconds: 200_000_000)
                emit("b")
                try await ContinuousClock().sleep(for: .milliseconds(100))
                emit("c")
                try await SuspendingClock().sleep(for: .milliseconds(400))
                emit("d")
                try await Task.sleep(until: .now + .milliseconds(200), clock: .continuous)
                emit("e")
                try await Task.sleep(for: .seconds(1.5), clock: .suspending)
                emit("f")
            }.toBe("---a-bc---d-e 1400ms (f|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a ten-second sleep is ten seconds of virtual time")
    func longSleep() {
        let scheduler = TestScheduler(frame: .seconds(1))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                try await Task.sleep(for: .seconds(10))
                emit("a")
            }.toBe("----------(a|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("an unstructured Task { } started by the code under test sleeps on virtual time")
    func unstructuredTask() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let results = PublishSubject<String>()
            let expectation = scheduler.expect(results)
            Task {
                try await Task.sleep(for: .milliseconds(300))
                results.onNext("late")
                results.onCompleted()
            }
            expectation.toBe("300ms (l|)", values: ["l": "late"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep cancelled by task.cancel() at a frame ends there with CancellationError")
    func cancelledSleep() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let results = PublishSubject<String>()
            let expectation = scheduler.expect(results)
            let task = Task {
                do {
                    try await Task.sleep(for: .seconds(1))
                    results.onNext("slept")
                } catch {
                    results.onNext(error is CancellationError ? "cancelled" : "other")
                }
            }
            scheduler.schedule(after: .milliseconds(400)) { task.cancel() }
            expectation.toBe("----c", values: ["c": "cancelled"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep until an instant in the past returns at the same frame")
    func pastDeadline() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                try await Task.sleep(for: .milliseconds(200))
                try await Task.sleep(until: .now - .seconds(5), clock: .continuous)
                emit("a")
                try await Task.sleep(for: .zero)
                emit("b")
            }.toBe("--(ab|)")
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("two sleepers due at one instant wake in the order they started sleeping")
    func sameInstant() {
        let scheduler = TestScheduler(frame: .milliseconds(100))
        scheduler.run {
            let results = PublishSubject<String>()
            let expectation = scheduler.expect(results)
            Task {
                try await Task.sleep(for: .milliseconds(500))
                results.onNext("first")
            }
            Task {
                try await Task.sleep(for: .milliseconds(200))
                try await Task.sleep(for: .milliseconds(300))
                results.onNext("second")
            }
            expectation.toBe("-----(ab)", values: ["a": "first", "b": "second"])
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a sleep whose duration cannot be told fails the test, naming the clock, the frame and the interval")
    func ambiguousSleep() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
        scheduler.clocks.enabled = false
        scheduler.run {
            // Where it wakes depends on real time, so only the failure is checked.
            _ = scheduler.expect(emitting: String.self) { emit in
                try await Task.sleep(for: .milliseconds(200))
                // The deadline is read from the real clock, then the job spends real time before it sleeps.
                let deadline = ContinuousClock.now + .milliseconds(400)
                realSpin(for: .milliseconds(80))
                try await Task.sleep(until: deadline, clock: .continuous)
                emit("a")
            }
        }
        let messages = reporter.failures.map(\.message)
        #expect(messages.count == 1, "\(messages)")
        #expect(
            messages.first?.contains(
                "a sleep on ContinuousClock started at frame 2 has no duration that can be told: the system clocks are real here (virtual clocks are turned off for this scheduler)"
            ) == true,
            "\(messages)")
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the same timeline in 500 runs")
    func determinism() {
        var timelines = Set<String>()
        for _ in 0..<500 {
            let reporter = MarbleFailure.Collector()
            // Durations in tenths of a second: a reading stays exact while the sleeping task ran
            // less than 50 ms of real time before it slept, so a loaded machine does not matter.
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let expectation = scheduler.run {
                let results = PublishSubject<Int>()
                let expectation = scheduler.expect(results)
                for index in 0..<4 {
                    Task {
                        try await Task.sleep(for: .milliseconds(300 - 100 * (index % 2)))
                        results.onNext(index)
                        try await ContinuousClock().sleep(for: .milliseconds(100))
                        results.onNext(index * 10)
                    }
                }
                return expectation
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
            timelines.insert(expectation.recorded.map { "\($0.value)@\($0.time)" }.joined(separator: " "))
        }
        #expect(timelines.count == 1, "\(timelines)")
    }
}

@Suite("Reading a sleep's duration from its deadline (where clocks cannot be virtual)")
struct SleepDeadlineTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the roundest duration in the interval, and another value a programmer would write there")
    func reading() {
        let ms: Int64 = 1_000_000
        let us: Int64 = 1_000
        #expect(SleepDeadline.reading(from: 300 * ms - 3 * us, to: 300 * ms + 40 * us) == (300 * ms, nil))
        #expect(SleepDeadline.reading(from: 1_500 * us - 2 * us, to: 1_500 * us + 8 * us) == (1_500 * us, nil))
        // 40 ms of real work before a 70 ms sleep: 100 ms is the roundest, and 70 ms is there too.
        #expect(SleepDeadline.reading(from: 70 * ms - 10 * us, to: 110 * ms) == (100 * ms, 70 * ms))
        // A multiple of a tenth of the step: 1.5 ms and 1.51 ms.
        #expect(SleepDeadline.reading(from: 1_500 * us - 2 * us, to: 1_500 * us + 20 * us) == (1_500 * us, 1_510 * us))
        #expect(SleepDeadline.reading(from: 50 * ms - us, to: 53 * ms) == (50 * ms, 51 * ms))
        #expect(SleepDeadline.reading(from: 1_500 * us, to: 2_200 * us) == (2 * ms, 1_500 * us))
        #expect(SleepDeadline.reading(from: 349 * ms, to: 401 * ms) == (400 * ms, 350 * ms))
        #expect(SleepDeadline.reading(from: 7, to: 7) == (7, nil))
        #expect(SleepDeadline.reading(from: 7, to: 8) == (7, 8))
        // Near the top: …800 is the roundest; with …790 in the interval too, it is ambiguous.
        #expect(SleepDeadline.reading(from: .max - 10, to: .max) == (.max - 7, nil))
        #expect(SleepDeadline.reading(from: .max - 20, to: .max) == (.max - 7, .max - 17))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a deadline that had passed is due at once; an exact delay is kept")
    func passedAndExact() {
        let arrival = ContinuousClock.now
        let now = [SleepDeadline.Instant(time: .milliseconds(500), real: arrival - .milliseconds(4))]
        let passed = SleepDeadline(
            remaining: .microseconds(-3), instants: now, jobStart: nil, arrival: arrival, now: .milliseconds(500),
            clock: ContinuousClock.self)
        #expect(passed.delay == .zero && passed.ambiguity == nil)
        #expect(SleepDeadline(exactly: .nanoseconds(1_234_567), clock: ContinuousClock.self).delay == .nanoseconds(1_234_567))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the sleeping job's real age bounds the reading: 40 ms of work before a 70 ms sleep is ambiguous, not 100 ms")
    func jobAge() {
        let arrival = ContinuousClock.now
        let instants = [SleepDeadline.Instant(time: .zero, real: arrival - .microseconds(40_010))]
        let sleep = SleepDeadline(
            remaining: .microseconds(69_990), instants: instants, jobStart: arrival - .milliseconds(40), arrival: arrival,
            now: .zero, clock: ContinuousClock.self)
        // The job's own interval (from its start) holds whole milliseconds from 70 to 109.
        #expect(sleep.ambiguity?.other == .milliseconds(70))
        #expect(sleep.ambiguity?.range == Duration.microseconds(69_990) ... .microseconds(109_990))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a whole number of milliseconds read in the sleep's own job is its duration, from this instant")
    func wholeMillisecondsInTheOwnJob() {
        // Issue 68: the README's `Task.sleep(for: .milliseconds(299))` at 100 ms, under real clocks.
        // The instant before began 1.2 ms of real time earlier: over it, 300 ms from 0 ms would
        // be the roundest reading; the sleep's own job (2 µs old) holds 299 ms only.
        let arrival = ContinuousClock.now
        let instants = [
            SleepDeadline.Instant(time: .zero, real: arrival - .microseconds(1_200)),
            SleepDeadline.Instant(time: .milliseconds(100), real: arrival - .microseconds(5)),
        ]
        let sleep = SleepDeadline(
            remaining: .nanoseconds(298_998_318), instants: instants, jobStart: arrival - .nanoseconds(2_093), arrival: arrival,
            now: .milliseconds(100), clock: ContinuousClock.self)
        #expect(sleep.duration == .milliseconds(299))
        #expect(sleep.delay == .milliseconds(299))
        #expect(sleep.ambiguity == nil)
        #expect(SleepDeadline.wholeMilliseconds(from: 1_500_000 - 2_000, to: 1_500_000 + 20_000) == nil)
        #expect(SleepDeadline.wholeMilliseconds(from: 999_000, to: 2_002_000)! == (1_000_000, 2_000_000))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a deadline read at an earlier instant ends the duration after that instant")
    func readAtAnEarlierInstant() {
        // Virtual instants 300 ms and 400 ms began 60 µs and 20 µs of real time before the sleep
        // arrived at 400 ms; 299.95 ms were left to the deadline: it was read 50 µs before, at 300 ms.
        let arrival = ContinuousClock.now
        let instants = [
            SleepDeadline.Instant(time: .milliseconds(300), real: arrival - .microseconds(60)),
            SleepDeadline.Instant(time: .milliseconds(400), real: arrival - .microseconds(20)),
        ]
        let earlier = SleepDeadline(
            remaining: .microseconds(299_950), instants: instants, jobStart: arrival - .microseconds(5), arrival: arrival,
            now: .milliseconds(400), clock: ContinuousClock.self)
        #expect(earlier.duration == .milliseconds(300) && earlier.delay == .milliseconds(200) && earlier.ambiguity == nil)
        // 299.99 ms left: read 10 µs before, within this instant.
        let current = SleepDeadline(
            remaining: .microseconds(299_990), instants: instants, jobStart: arrival - .microseconds(5), arrival: arrival,
            now: .milliseconds(400), clock: ContinuousClock.self)
        #expect(current.duration == .milliseconds(300) && current.delay == .milliseconds(300))
    }
}

/// Where the clocks are real, a sleep after real work is read back: it either lands at its true
/// frame or fails naming its true duration, never passes at another frame.
@Suite("Reading back a sleep after real work")
struct ReadBackTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test(
        "a sleep after real work reads its true duration or fails naming it",
        arguments: [(0, 70), (40, 70), (5, 300), (30, 120), (15, 1_000)])
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func trueOrFails(work: Int, sleep: Int) {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .milliseconds(10), reporter: reporter)
        scheduler.clocks.enabled = false
        let expectation = scheduler.run {
            scheduler.expect(emitting: String.self) { emit in
                realSpin(for: .milliseconds(work))
                try await Task.sleep(for: .milliseconds(sleep))
                emit("a")
            }
        }
        let messages = reporter.failures.map(\.message)
        if messages.isEmpty {
            #expect(expectation.recorded.first?.time == .milliseconds(sleep))
        } else {
            #expect(messages.count == 1, "\(messages)")
            #expect(messages.first?.contains("could be \(Duration.milliseconds(sleep))") == true, "\(messages)")
        }
    }
}
