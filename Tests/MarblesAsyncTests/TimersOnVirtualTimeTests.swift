import Dispatch
import Foundation
import MarbleCore
import MarblesTesting
import Testing

// Issue 59: the timers apps use, on virtual time, with nothing injected.

#if os(Linux)
    /// A ticker as apps write one: a repeating Dispatch timer source on a queue of its own, which
    /// stops itself after `count` ticks.
    final class SourceTicker: @unchecked Sendable {
        private let timer: any DispatchSourceTimer
        private let lock = NSLock()
        private var fired = 0
        let ticks: AsyncStream<Int>

        init(every interval: DispatchTimeInterval, count: Int, queue: DispatchQueue = DispatchQueue(label: "ticker")) {
            let (ticks, continuation) = AsyncStream.makeStream(of: Int.self)
            self.ticks = ticks
            timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [unowned self] in
                let tick = lock.withLock {
                    fired += 1
                    return fired
                }
                continuation.yield(tick)
                if tick == count {
                    timer.cancel()
                    continuation.finish()
                }
            }
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.resume()
        }

        func suspend() { timer.suspend() }
        func resume() { timer.resume() }
    }

    @Suite("Timers the app uses, on virtual time", .noPortabilityWarning)
    struct TimersOnVirtualTimeTests {
        static let letters = ["a", "b", "c", "d", "e"]

        /// The failures of one run of a ticker every `interval` ms, `count` ticks, at 100 ms frames.
        static func tickerFailures(every interval: Int, count: Int, expected: String) -> [String] {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.run {
                scheduler.expect(emitting: String.self) { emit in
                    let ticker = SourceTicker(every: .milliseconds(interval), count: count)
                    for await tick in ticker.ticks { emit(letters[tick - 1]) }
                }.toBe(expected)
            }
            return reporter.failures.map(\.message)
        }

        @Test("a repeating DispatchSource timer ticks at virtual time, three ticks")
        func repeatingSource() {
            let failures = Self.tickerFailures(every: 200, count: 3, expected: "--a-b-(c|)")
            #expect(failures.isEmpty, "\(failures)")
        }

        @Test("the repeating source ticks exactly, 100 runs in a row")
        func repeatingSourceInARow() {
            for _ in 0..<100 {
                let failures = Self.tickerFailures(every: 200, count: 3, expected: "--a-b-(c|)")
                #expect(failures.isEmpty, "\(failures)")
            }
        }

        @Test("the repeating source ticks exactly, 50 runs side by side", arguments: 0..<50)
        func repeatingSourceInParallel(_ run: Int) {
            let failures = Self.tickerFailures(every: 300, count: 2, expected: "---a--(b|)")
            #expect(failures.isEmpty, "\(failures)")
        }

        @Test("a one-shot source fires once; a new schedule replaces the old; a cancelled one never fires")
        func oneShotRescheduleCancel() async throws {
            let fired = Log()
            try await withVirtualTime { _ in
                let queue = DispatchQueue(label: "one-shot")
                let once = DispatchSource.makeTimerSource(queue: queue)
                once.setEventHandler { fired.append("once at \(ContinuousClock.now)") }
                once.schedule(deadline: .now() + .seconds(5))
                once.resume()
                let moved = DispatchSource.makeTimerSource(queue: queue)
                moved.setEventHandler { fired.append("moved") }
                moved.schedule(deadline: .now() + .seconds(1))
                moved.schedule(deadline: .now() + .seconds(3))
                moved.resume()
                let cancelled = DispatchSource.makeTimerSource(queue: queue)
                cancelled.setEventHandler { fired.append("cancelled") }
                cancelled.schedule(deadline: .now() + .seconds(2))
                cancelled.resume()
                let start = ContinuousClock.now
                try await Task.sleep(for: .seconds(1))
                cancelled.cancel()
                try await Task.sleep(for: .seconds(9))
                once.cancel()
                moved.cancel()
                #expect(ContinuousClock.now - start == .seconds(10))
            }
            #expect(fired.entries.count == 2)
            #expect(fired.entries.last?.hasPrefix("once at") == true)
            #expect(fired.entries.first == "moved")
        }

        @Test("a suspended source delivers what it missed when resumed, once, with the count as its data")
        func suspendAndResume() async throws {
            let seen = Log()
            try await withVirtualTime { _ in
                let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "suspended"))
                timer.setEventHandler { seen.append("\(timer.data)") }
                timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
                timer.resume()
                try await Task.sleep(for: .milliseconds(1500))
                timer.suspend()
                try await Task.sleep(for: .seconds(3))
                timer.resume()
                try await Task.sleep(for: .milliseconds(100))
                timer.cancel()
            }
            #expect(seen.entries == ["1", "3"])
        }

        @MainActor
        @Test("a main-queue timer source in a @MainActor test fires in the scheduler's loop")
        func mainQueueSource() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            var ticks: [Duration] = []
            scheduler.run {
                let timer = DispatchSource.makeTimerSource(queue: .main)
                timer.setEventHandler {
                    MainActor.assumeIsolated { ticks.append(scheduler.now) }
                    if ticks.count == 2 { timer.cancel() }
                }
                timer.schedule(deadline: .now() + .milliseconds(300), repeating: .milliseconds(300))
                timer.resume()
            }
            #expect(ticks == [.milliseconds(300), .milliseconds(600)])
        }

        @Test("a timer source that stays on real time (a wall-clock deadline) names itself in the run's failures")
        func escapeNamesItself() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.run {
                scheduler.schedule(after: .milliseconds(200)) {
                    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "wall-clock"))
                    timer.setEventHandler {}
                    timer.schedule(wallDeadline: .now() + .seconds(60))
                    timer.resume()
                    timer.cancel()
                }
            }
            let messages = reporter.failures.map(\.message)
            #expect(messages.count == 1)
            #expect(
                messages.first?.contains("  a Dispatch timer source armed at frame 2 on queue 'wall-clock' runs on real time") == true,
                "\(messages)")
        }

        @MainActor
        @Test("with real clocks (MARBLES_PORTABLE=1), a main-queue asyncAfter in a @MainActor test names itself instead of stalling")
        func portableMainQueueTimer() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            scheduler.runtime.clocks.enabled = false
            scheduler.foreignWorkTimeout = .seconds(2)
            let fired = Log()
            scheduler.run {
                DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(300)) { fired.append("fired") }
            }
            let messages = reporter.failures.map(\.message)
            #expect(!messages.contains { $0.contains("has not finished after") }, "\(messages)")
            #expect(
                messages.contains { $0.contains("a Dispatch timer armed at frame 0 on queue 'com.apple.main-thread' runs on real time") },
                "\(messages)")
        }

        @Test("a continuation answered by a worker thread started before the run comes back at the instant it was asked")
        func workerStartedBeforeTheRun() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
            let worker = Worker.shared  // started before the run, as the app's is
            scheduler.run {
                scheduler.expect(emitting: String.self) { emit in
                    try await Task.sleep(for: .milliseconds(200))
                    emit(await worker.ask("a"))
                    try await Task.sleep(for: .milliseconds(100))
                    emit(await worker.ask("b"))
                }.toBe("--A(B|)")
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
        }

        @Test("the same in a body on virtual time, 100 runs in a row")
        func workerStartedBeforeTheBody() async throws {
            let worker = Worker.shared  // started before the run, as the app's is
            try await withVirtualTime(frame: .milliseconds(100)) { _ in
                for _ in 0..<100 {
                    let start = ContinuousClock.now
                    try await Task.sleep(for: .milliseconds(100))
                    #expect(await worker.ask("x") == "X")
                    #expect(ContinuousClock.now - start == .milliseconds(100))
                }
            }
        }

        @Test("a continuation nothing resumes is still reported, after one short wait")
        func neverAnswered() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                scheduler.expect(emitting: Int.self) { _ in
                    await withCheckedContinuation { NeverResumed.keep($0) }
                }.toBe("-")
            }
            #expect(reporter.failures.map(\.message).contains { $0.contains("still suspended when nothing was left to run") })
        }

        @Test("a timer source made in a run and scheduled after it from another thread keeps the real timer, safely")
        func sourceOutlivesItsRun() {
            nonisolated(unsafe) var timer: (any DispatchSourceTimer)?
            do {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                scheduler.run {
                    let made = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "late"))
                    made.setEventHandler {}
                    made.resume()
                    timer = made
                }
            }
            // The scheduler, its runtime and its tracker's creator are gone; the shadow still names
            // the tracker when the escape is noted (AddressSanitizer runs this suite).
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                timer?.schedule(deadline: .now() + .seconds(60))
                done.signal()
            }
            done.wait()
            timer?.cancel()
            #expect(timer?.isCancelled == true)
        }
    }

    /// An I/O loop as apps have one: a thread of its own, started once (before any test runs),
    /// answering requests through continuations.
    final class Worker: @unchecked Sendable {
        static let shared = Worker()
        private let condition = NSCondition()
        private var requests: [(String, CheckedContinuation<String, Never>)] = []

        private init() {
            let thread = Thread { [unowned self] in serve() }
            thread.start()
        }

        func ask(_ question: String) async -> String {
            await withCheckedContinuation { continuation in
                condition.lock()
                requests.append((question, continuation))
                condition.signal()
                condition.unlock()
            }
        }

        private func serve() {
            while true {
                condition.lock()
                while requests.isEmpty { condition.wait() }
                let (question, continuation) = requests.removeFirst()
                condition.unlock()
                continuation.resume(returning: question.uppercased())
            }
        }
    }
#endif
