import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Testing

// Issue 59: run-loop timers (`Timer.scheduledTimer`, `RunLoop.add`, `RunLoop.perform`) on
// virtual time, with nothing injected.

#if os(Linux)
    /// A countdown as apps write one: a main-actor model with a repeating `Timer` on the run loop.
    @MainActor
    final class Countdown {
        private(set) var remaining: Int
        /// When each tick came, from the start.
        private(set) var ticks: [Duration] = []
        private var timer: Timer?
        private let started = ContinuousClock.now

        init(from start: Int) { remaining = start }

        /// Ticks every `interval` seconds on `runLoop` (the current one when `nil`), until zero.
        func start(every interval: TimeInterval, on runLoop: RunLoop? = nil, mode: RunLoop.Mode = .common) {
            let tick: @Sendable (Timer) -> Void = { [weak self] timer in
                let done = MainActor.assumeIsolated {
                    guard let self else { return true }
                    self.remaining -= 1
                    self.ticks.append(ContinuousClock.now - self.started)
                    return self.remaining == 0
                }
                if done { timer.invalidate() }
            }
            if let runLoop {
                // `Timer(timeInterval:repeats:block:)` would fire at once on Linux (its fire date
                // is now there), after one interval on Apple platforms: the fire date said.
                let timer = Timer(fire: Date(timeIntervalSinceNow: interval), interval: interval, repeats: true, block: tick)
                runLoop.add(timer, forMode: mode)
                self.timer = timer
            } else {
                timer = Timer.scheduledTimer(withTimeInterval: interval, repeats: true, block: tick)
            }
        }

        func stop() { timer?.invalidate() }
    }

    @Suite("Run-loop timers, on virtual time", .noPortabilityWarning)
    struct RunLoopTimersTests {
        static let leftOnMain =
            "a run-loop timer armed at frame 0 on RunLoop.main, in a test that is not on the main actor, is left to its run loop"
        static let leftMadeBefore =
            "a run-loop timer armed at frame 0 made before the run or on another thread, is left to its run loop"

        @MainActor
        @Test("Timer.scheduledTimer in a @MainActor test ticks at virtual time")
        func scheduledTimerTicks() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let ticks = Log()
            scheduler.run {
                let start = ContinuousClock.now
                _ = Timer.scheduledTimer(withTimeInterval: 0.3, repeats: true) { timer in
                    MainActor.assumeIsolated { ticks.append("\(ContinuousClock.now - start)") }
                    if ticks.entries.count == 2 { timer.invalidate() }
                }
            }
            #expect(ticks.entries == ["0.3 seconds", "0.6 seconds"])
            #expect(scheduler.now == .milliseconds(600))
        }

        @MainActor
        @Test("a countdown on RunLoop.main (common modes) in a @MainActor body on virtual time", .virtualTime)
        func countdownOnTheMainRunLoop() async throws {
            let countdown = Countdown(from: 3)
            countdown.start(every: 1, on: .main)
            try await Task.sleep(for: .seconds(10))
            #expect(countdown.remaining == 0)
            #expect(countdown.ticks == [.seconds(1), .seconds(2), .seconds(3)])
        }

        @MainActor
        @Test("the countdown ticks exactly, 100 runs in a row")
        func countdownInARow() {
            for _ in 0..<100 {
                let scheduler = TestScheduler(frame: .milliseconds(100))
                var countdown: Countdown?
                scheduler.run {
                    countdown = Countdown(from: 2)
                    countdown?.start(every: 0.3)
                }
                #expect(countdown?.ticks == [.milliseconds(300), .milliseconds(600)])
            }
        }

        @Test("a timer on the test's own run loop ticks exactly, 50 runs side by side", arguments: 0..<50)
        func timersInParallel(_ run: Int) {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let ticks = Log()
            scheduler.run {
                let start = ContinuousClock.now
                _ = Timer.scheduledTimer(withTimeInterval: 0.2, repeats: true) { timer in
                    ticks.append("\(ContinuousClock.now - start)")
                    if ticks.entries.count == 3 { timer.invalidate() }
                }
            }
            #expect(ticks.entries == ["0.2 seconds", "0.4 seconds", "0.6 seconds"])
        }

        @Test("a one-shot timer fires once and is invalid after; invalidated before its date, it never fires")
        func oneShotAndInvalidate() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let fired = Log()
            var once: Timer?
            scheduler.run {
                let start = ContinuousClock.now
                once = Timer.scheduledTimer(withTimeInterval: 0.5, repeats: false) { timer in
                    fired.append("once \(ContinuousClock.now - start) valid \(timer.isValid)")
                }
                let never = Timer.scheduledTimer(withTimeInterval: 0.4, repeats: false) { _ in fired.append("never") }
                scheduler.schedule(after: .milliseconds(200)) { never.invalidate() }
            }
            #expect(fired.entries == ["once 0.5 seconds valid true"])
            #expect(once?.isValid == false)
            #expect(scheduler.now == .milliseconds(500))
        }

        @Test("a new fireDate moves the timer, earlier or later; a repeating one goes on from there")
        func newFireDate() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let fired = Log()
            scheduler.run {
                let start = ContinuousClock.now
                let later = Timer.scheduledTimer(withTimeInterval: 0.2, repeats: false) { _ in
                    fired.append("later \(ContinuousClock.now - start)")
                }
                later.fireDate = Date().addingTimeInterval(0.7)
                let repeating = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { timer in
                    fired.append("repeating \(ContinuousClock.now - start)")
                    if fired.entries.count >= 3 { timer.invalidate() }
                }
                repeating.fireDate = Date().addingTimeInterval(0.3)
            }
            #expect(fired.entries == ["repeating 0.3 seconds", "later 0.7 seconds", "repeating 1.3 seconds"])
        }

        @Test("RunLoop.perform runs its block in the scheduler's loop, at the instant it was asked")
        func performBlock() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            let ran = Log()
            scheduler.run {
                let start = ContinuousClock.now
                scheduler.schedule(after: .milliseconds(300)) {
                    RunLoop.current.perform { ran.append("performed at \(ContinuousClock.now - start)") }
                    ran.append("asked at \(ContinuousClock.now - start)")
                }
            }
            #expect(ran.entries == ["asked at 0.3 seconds", "performed at 0.3 seconds"])
        }

        @Test("a timer in a mode the run does not drive names itself in the run's failures")
        func otherModeNamesItself() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.run {
                scheduler.schedule(after: .milliseconds(200)) {
                    let timer = Timer(timeInterval: 1, repeats: false) { _ in }
                    RunLoop.current.add(timer, forMode: RunLoop.Mode("custom"))
                    timer.invalidate()
                }
            }
            let messages = reporter.failures.map(\.message)
            #expect(messages.count == 1)
            #expect(
                messages.first?.contains(
                    "  a run-loop timer armed at frame 2 in run-loop mode 'custom' is left to its run loop, which nothing runs in a test")
                    == true, "\(messages)")
            #expect(messages.first?.contains("in the default or the common modes") == true, "\(messages)")
        }

        // Issue 68: under real clocks (MARBLES_PORTABLE=1) a timer added on the test's own thread
        // was reported as "added on another thread".
        @Test("a timer added on the test's thread while the clocks are real says so, not another thread")
        func realClocksNameThemselves() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.runtime.clocks.enabled = false
            scheduler.run {
                let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: false) { _ in }
                timer.invalidate()
            }
            let messages = reporter.failures.map(\.message).joined(separator: "\n")
            #expect(messages.contains("added while the run's clocks are real (MARBLES_PORTABLE=1, as on Apple platforms),"), "\(messages)")
            #expect(!messages.contains("added on another thread"), "\(messages)")
        }

        @Test("RunLoop.main from a test that is not on the main actor names itself")
        func mainRunLoopOffTheMainActor() async {
            let messages = await Task.detached {
                let reporter = MarbleFailure.Collector()
                let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
                scheduler.run {
                    let timer = Timer(timeInterval: 1, repeats: false) { _ in }
                    RunLoop.main.add(timer, forMode: .default)
                    timer.invalidate()
                }
                return reporter.failures.map(\.message)
            }.value
            #expect(
                messages.contains { $0.contains(Self.leftOnMain) }, "\(messages)")
        }

        @Test("a timer made before the run and added in it names itself")
        func madeBeforeTheRun() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            let timer = Timer(timeInterval: 1, repeats: false) { _ in }
            scheduler.run {
                RunLoop.current.add(timer, forMode: .default)
                timer.invalidate()
            }
            let messages = reporter.failures.map(\.message)
            #expect(
                messages.contains { $0.contains(Self.leftMadeBefore) }, "\(messages)")
        }
    }
#endif
