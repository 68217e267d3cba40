import Foundation
import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles
@testable import MarblesRuntime

/// A search box's debouncer as view models write it: each query cancels the pending one and
/// sleeps 300 ms on the injected clock before it searches.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
private final class Debouncer: @unchecked Sendable {
    private let clock: TestClock
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var searched: [String] = []

    init(clock: TestClock) { self.clock = clock }

    var results: [String] { lock.withLock { searched } }

    func search(_ query: String) {
        task?.cancel()
        task = Task { [clock] in
            do {
                try await clock.sleep(for: .milliseconds(300))
                lock.withLock { searched.append(query) }
            } catch {}
        }
    }
}

/// A model that owns an endless task: it ticks every second on the injected clock until stopped.
@available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
private final class Ticker: @unchecked Sendable {
    let ticks = PublishSubject<Int>()
    private let clock: TestClock
    private var task: Task<Void, Never>?

    init(clock: TestClock) { self.clock = clock }

    func start() {
        task = Task(name: "ticker") { [clock, ticks] in
            var count = 0
            while !Task.isCancelled {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                count += 1
                ticks.onNext(count)
            }
        }
    }

    func stop() { task?.cancel() }
}

/// What a newcomer meets first (issue 50): the imperative style outside and inside a run, and
/// the portability note for system clocks read inside a run.
@Suite("First contact")
struct FirstContactTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("advance(by:) before any run, with scheduler.clock in use, says to start the code inside run and advance there")
    func advanceOutsideRun() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let model = Debouncer(clock: scheduler.clock)
        model.search("swift")
        scheduler.advance(by: .milliseconds(300))
        scheduler.advance(by: .milliseconds(300))
        #expect(model.results.isEmpty)
        #expect(reporter.failures.count == 1, "once per scheduler")
        let message = reporter.failures.first?.message ?? ""
        #expect(message.hasPrefix("scheduler.advance(by: 0.3 seconds) was called outside scheduler.run { }"), "\(message)")
        #expect(message.contains("scheduler.run {"))
        #expect(message.contains("#expect(model.results == [\"swift\"])"))
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("flush() before any run, with scheduler.clock in use, reports the same")
    func flushOutsideRun() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        _ = scheduler.clock
        scheduler.flush()
        #expect(reporter.failures.map(\.message).first?.hasPrefix("scheduler.flush() was called outside scheduler.run { }") == true)
    }

    @Test("advance(by:) outside a run of observables only (no clock) is the classic style and reports nothing")
    func advanceWithoutAsync() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        var seen: [String] = []
        let input = scheduler.hot("-a-b|")
        _ = input.subscribe(onNext: { seen.append($0) })
        scheduler.advance(by: .milliseconds(2))
        #expect(seen == ["a"])
        scheduler.advance(by: .milliseconds(2))
        #expect(seen == ["a", "b"])
        #expect(reporter.failures.isEmpty)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("the imperative style inside run: advance(by:) and #expect between the steps")
    func advanceInsideRun() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let model = Debouncer(clock: scheduler.clock)
        scheduler.run {
            model.search("s")
            scheduler.advance(by: .milliseconds(100))
            model.search("swift")
            scheduler.advance(by: .milliseconds(299))
            #expect(model.results.isEmpty)
            scheduler.advance(by: .milliseconds(1))
            #expect(model.results == ["swift"])
        }
        #expect(reporter.failures.isEmpty)
    }

    #if os(Linux)
        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test("a run whose code reads Date() and ContinuousClock.now warns once, naming the clocks and the test")
        func portabilityNote() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(
                startDate: Date(timeIntervalSince1970: 1_000_000), reporter: reporter,
                listener: TestScheduler.Listener(testName: "stamps results"))
            scheduler.run {
                scheduler.expect(emitting: Double.self) { emit in
                    let start = Date()
                    let began = ContinuousClock.now
                    try await Task.sleep(for: .milliseconds(5))
                    emit((Date().timeIntervalSince(start) * 1000).rounded())
                    _ = began.duration(to: .now)
                }.toBe("-----(a|)", values: ["a": 5])
            }
            scheduler.run {}
            #expect(reporter.failures.isEmpty, "\(reporter.failures)")
            #expect(reporter.warnings.count == 1)
            let note = reporter.warnings.first?.message ?? ""
            #expect(
                note.hasPrefix("portability: the test \"stamps results\" read Date() (2 reads), ContinuousClock.now (2 reads)"), "\(note)")
            #expect(note.contains("  - Date(): take the date from a `now: () -> Date` the test sets from the scheduler"))
            #expect(note.contains("  - ContinuousClock.now: pass scheduler.clock where the code takes a Clock"))
            #expect(note.contains("MARBLES_PORTABLE=1"))
            #expect(note.contains(".noPortabilityWarning trait, or MARBLES_PORTABILITY_WARNING=0"))
        }

        @Test("DispatchTime.now() gets its own advice: asyncAfter takes no clock")
        func dispatchTimeAdvice() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run { _ = DispatchTime.now() }
            let note = reporter.warnings.first?.message ?? ""
            #expect(note.contains("read DispatchTime.now() (1 read)"), "\(note)")
            #expect(note.contains("  - DispatchTime.now(): asyncAfter takes no clock; schedule through scheduler.dispatchQueue"))
            #expect(!note.contains("scheduler.clock where"))
        }

        @Test("the .noPortabilityWarning trait turns the note off", .noPortabilityWarning)
        func traitTurnsNoteOff() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run { _ = Date() }
            #expect(reporter.warnings.isEmpty, "\(reporter.warnings)")
        }

        @Test("Swift Testing's own clock reads (a known issue recorded inside the run) are not the code's")
        func testFrameworkReadsLeftOut() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                withKnownIssue { Issue.record("recorded inside the run") }
            }
            #expect(reporter.warnings.isEmpty, "\(reporter.warnings)")
        }

        @Test("a busy wait's reads are reported once, as the busy wait, not again in the note")
        func busyWaitNotCountedAgain() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                scheduler.expect(emitting: Int.self) { emit in
                    let start = ContinuousClock.now
                    while ContinuousClock.now - start < .milliseconds(1) {}
                    emit(1)
                }.toBe("(a|)", values: ["a": 1])
            }
            #expect(reporter.failures.map(\.message).contains { $0.contains("read ContinuousClock.now in a loop") })
            #expect(reporter.warnings.isEmpty, "\(reporter.warnings.map(\.message))")
        }

        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test("Task.sleep and scheduler.clock alone read no clock of the code's: no note")
        func sleepsAloneNoNote() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            scheduler.run {
                let clock = scheduler.clock
                scheduler.expect(emitting: Int.self) { emit in
                    try await Task.sleep(for: .milliseconds(2))
                    try await ContinuousClock().sleep(for: .milliseconds(1))
                    try await SuspendingClock().sleep(for: .milliseconds(1))
                    try await clock.sleep(for: .milliseconds(1))
                    emit(1)
                }.toBe("-----(a|)", values: ["a": 1])
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures)")
            #expect(reporter.warnings.isEmpty, "\(reporter.warnings)")
        }

        @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
        @Test("with the clocks of Apple platforms (what MARBLES_PORTABLE=1 sets), a virtual-Date expectation fails")
        func portableClocksAreReal() {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(frame: .seconds(1), startDate: Date(timeIntervalSince1970: 1_000_000), reporter: reporter)
            scheduler.runtime.clocks.enabled = false
            scheduler.run {
                scheduler.expect(emitting: Double.self) { emit in
                    try await Task.sleep(for: .seconds(2))
                    emit(Date().timeIntervalSince1970)
                }.toBe("--(a|)", values: ["a": 1_000_002])
            }
            #expect(reporter.failures.count == 1)
            #expect(reporter.warnings.isEmpty)
            #expect(scheduler.runtime.clocks.mode == .readBack)
            // Issue 59: which reads made the difference. The sleep's own read of the clock is
            // left out; the code's Date() is counted, and portable mode's failures say so.
            #expect(scheduler.runtime.clocks.realReads().map { "\($0.clock) \($0.reads)" } == ["Date() 1"])
            let noted = MarbleFailure.Collector()
            MarbleFailure.PortableModeNote(base: noted) { scheduler.runtime.clocks.realReads() }.report(reporter.failures[0])
            #expect(
                noted.failures.first?.message.hasSuffix(
                    "The code under test read Date() once here (real; virtual without MARBLES_PORTABLE).") == true,
                "\(noted.failures.map(\.message))")
        }
    #endif

    @Test("MARBLES_PORTABLE reads 1, true and yes as on")
    func portableSwitch() {
        #expect(VirtualClocks.isPortable("1"))
        #expect(VirtualClocks.isPortable("TRUE"))
        #expect(VirtualClocks.isPortable("yes"))
        #expect(!VirtualClocks.isPortable("0"))
        #expect(!VirtualClocks.isPortable(nil))
    }

    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    @Test("the step limit names the sleeping task, checks the expectations whose window closed, and spells out scheduler.maxFrames")
    func stepLimitWithEndlessTask() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: .seconds(1), stepLimit: 2_000, reporter: reporter)
        let openLine = #line + 6
        scheduler.run {
            let ticker = Ticker(clock: scheduler.clock)
            ticker.start()
            scheduler.expect(ticker.ticks, unsubscribe: "^---!").toBe("-abc", values: ["a": 1, "b": 2, "c": 3])
            scheduler.expect(ticker.ticks, unsubscribe: "^---!").toBe("-abd", values: ["a": 1, "b": 2, "d": 4])
            scheduler.expect(ticker.ticks).toBe("-a", values: ["a": 1])
        }
        #expect(reporter.failures.count == 2, "the step limit, then the closed window that differs")
        let limit = reporter.failures.first?.message ?? ""
        #expect(limit.hasPrefix("the test scheduler ran 2000 steps and work was still due at frame "), "\(limit)")
        #expect(limit.contains("sleeping when it stopped:\n  the task \"ticker\", until frame "), "\(limit)")
        #expect(limit.contains("scheduler.maxFrames = "), "\(limit)")
        #expect(limit.contains("cancel it inside the run"), "\(limit)")
        #expect(limit.contains("1 expectation whose window was still open was not checked (line \(openLine))"), "\(limit)")
        #expect(reporter.failures.last?.message.hasPrefix("marble diagrams differ at frame 3") == true)
    }

    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    @Test("with scheduler.maxFrames, or with the task stopped inside the run, the same test passes")
    func endlessTaskStopped() {
        let reporter = MarbleFailure.Collector()
        let limited = TestScheduler(frame: .seconds(1), stepLimit: 2_000, reporter: reporter)
        limited.maxFrames = 10
        limited.run {
            let ticker = Ticker(clock: limited.clock)
            ticker.start()
            limited.expect(ticker.ticks, unsubscribe: "^---!").toBe("-abc", values: ["a": 1, "b": 2, "c": 3])
        }
        let stopped = TestScheduler(frame: .seconds(1), stepLimit: 2_000, reporter: reporter)
        stopped.run {
            let ticker = Ticker(clock: stopped.clock)
            ticker.start()
            stopped.expect(ticker.ticks, unsubscribe: "^---!").toBe("-abc", values: ["a": 1, "b": 2, "c": 3])
            stopped.schedule(after: .seconds(5)) { ticker.stop() }
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures)")
    }
}
