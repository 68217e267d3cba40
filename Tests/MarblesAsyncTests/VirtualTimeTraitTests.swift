import Dispatch
import Foundation
import MarbleCore
import MarblesRuntime
import MarblesTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Issue 60: async test bodies on virtual time, as Swift developers write them, with nothing
// injected: the `.virtualTime` trait and `withVirtualTime`.

/// A search box's model as apps write it: each query waits 300 ms of quiet (a newer query
/// cancels the pending one), then asks the API, then shows the answer. Nothing injected: it
/// sleeps with `Task.sleep` and its API is async.
@MainActor
final class PausingSearchModel {
    struct API: Sendable {
        var search: @Sendable (String) async throws -> [String]
        static let stub = API { query in [query.uppercased()] }
    }
    private let api: API
    private var pending: Task<Void, Never>?
    private(set) var results: [String] = []
    private(set) var searches = 0

    init(api: API) { self.api = api }

    func queryChanged(_ query: String) {
        pending?.cancel()
        pending = Task {
            do {
                try await Task.sleep(for: .milliseconds(300))
                searches += 1
                results = try await api.search(query)
            } catch {}
        }
    }
}

@Suite("Async test bodies on virtual time", .noPortabilityWarning)
struct VirtualTimeTraitTests {
    /// The issue's example, unchanged but for the trait.
    @MainActor
    @Test(.virtualTime) func showsResultsAfterAPause() async throws {
        let model = PausingSearchModel(api: .stub)
        model.queryChanged("swift")
        try await Task.sleep(for: .milliseconds(300))
        #expect(model.results == ["SWIFT"])
    }

    @MainActor
    @Test(.virtualTime) func timeMovesOnlyAsFarAsTheBodyWaits() async throws {
        let model = PausingSearchModel(api: .stub)
        let start = ContinuousClock.now
        model.queryChanged("s")
        try await Task.sleep(for: .milliseconds(100))
        model.queryChanged("sw")
        try await Task.sleep(for: .milliseconds(299))
        #expect(model.results.isEmpty)
        try await Task.sleep(for: .milliseconds(1))
        #expect(model.results == ["SW"])
        #expect(model.searches == 1)
        #expect(ContinuousClock.now - start == .milliseconds(400))
    }

    @Test(.virtualTime) func tenMinutesOfSleepTakeNoRealTime() async throws {
        let start = ContinuousClock.now
        let date = Date()
        try await Task.sleep(for: .seconds(600))
        #expect(ContinuousClock.now - start == .seconds(600))
        #expect(Date().timeIntervalSince(date) == 600)
    }

    @Test(.virtualTime(startDate: Date(timeIntervalSince1970: 1_000_000)))
    func startsAtTheGivenDate() async throws {
        #expect(Date() == Date(timeIntervalSince1970: 1_000_000))
        try await Task.sleep(for: .seconds(5))
        #expect(Date() == Date(timeIntervalSince1970: 1_000_005))
    }

    // Issue 68: one fixed instant by default, as Go's synctest, so date logic does not pass or
    // fail by the day the test runs; `startDate: nil` asks for the real date.
    @Test(.virtualTime) func dateStartsAtTheFixedInstantByDefault() async throws {
        #expect(Date() == VirtualTimeTrait.fixedStartDate)
        #expect(VirtualTimeTrait.fixedStartDate == ISO8601DateFormatter().date(from: "2000-01-01T00:00:00Z"))
        try await Task.sleep(for: .seconds(1))
        #expect(Date() == VirtualTimeTrait.fixedStartDate.addingTimeInterval(1))
    }

    @Test(.virtualTime(startDate: nil)) func aNilStartDateIsTheRealDate() async throws {
        let real = Double(Watchdog.realDateNanoseconds()) / 1e9
        #expect(abs(Date().timeIntervalSince1970 - real) < 60)
    }

    // Issue 69: code compiled into the test executable (SwiftNIO's `NIODeadline.now()`, the
    // test's own C calls) reads the run's clocks too, so an instant taken on the test's thread
    // and one taken on an event loop that serves the run agree.
    @Test(.virtualTime) func theTestsOwnClockReadsAreTheRunsClocks() async throws {
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var date = timespec()
        clock_gettime(CLOCK_REALTIME, &date)
        #expect(Double(date.tv_sec) == VirtualTimeTrait.fixedStartDate.timeIntervalSince1970)
        try await Task.sleep(for: .seconds(3))
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        #expect((end.tv_sec - start.tv_sec) * 1_000_000_000 + (end.tv_nsec - start.tv_nsec) == 3_000_000_000)
    }

    @Test func withVirtualTimeStartsAtTheFixedInstantToo() async throws {
        let date = try await withVirtualTime { _ in Date() }
        #expect(date == VirtualTimeTrait.fixedStartDate)
    }

    /// `#expect` between awaits beside marble expectations on the same scheduler.
    @Test(.virtualTime(frame: .milliseconds(100)))
    func marbleExpectationsBetweenAwaits() async throws {
        let scheduler = try #require(TestScheduler.current)
        let clicks = scheduler.hot("-a-b-|")
        scheduler.expect(clicks.map { $0.uppercased() }).toBe("-A-B-|")
        try await Task.sleep(for: .milliseconds(250))
        #expect(scheduler.now == .milliseconds(250))
        // Made mid-run: counts from now, and is set up at once.
        let late = scheduler.hot("-x|")
        scheduler.expect(late).toBe("-x|")
        scheduler.expect(scheduler.cold("--y|")).toBe("--y|")
    }

    @Test(.virtualTime) func runCurrentRunsWhatIsDueNowWithoutMovingTime() async throws {
        let start = ContinuousClock.now
        let log = Log()
        Task { log.append("started") }
        Task {
            await Task.yield()
            log.append("yielded")
            DispatchQueue.global().async { log.append("on another thread") }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(1))
            log.append("later")
        }
        await TestScheduler.runCurrent()
        #expect(log.entries == ["started", "yielded", "on another thread"])
        #expect(ContinuousClock.now == start)
        try await Task.sleep(for: .milliseconds(1))
        #expect(log.entries.last == "later")
    }

    @Test func runCurrentOnTheBodysSchedulerRunsWhatIsDue() async throws {
        let order = try await withVirtualTime { scheduler in
            let log = Log()
            Task { log.append("started") }
            await scheduler.runCurrent()
            log.append("after runCurrent")
            return log.entries
        }
        #expect(order == ["started", "after runCurrent"])
    }

    @Test(.virtualTime) func runCurrentOnAnotherSchedulerFailsSayingWhy() async {
        let other = TestScheduler()
        await withKnownIssue {
            await other.runCurrent()
        } matching: { issue in
            issue.comments.contains {
                $0.rawValue.hasPrefix("scheduler.runCurrent() ran nothing: this scheduler is not the running body's")
            }
        }
    }

    // Issue 68: it did nothing, silently; the test now fails at the call, saying why.
    @Test func runCurrentOutsideVirtualTimeFailsSayingWhy() async {
        await withKnownIssue {
            await TestScheduler.runCurrent()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("TestScheduler.runCurrent() ran nothing: it was called outside a test body") }
        }
        #expect(TestScheduler.current == nil)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test(.virtualTime) func runCurrentFromATaskOnAnotherExecutorFailsSayingWhy() async throws {
        // The body awaits a task on the global pool: under a loaded parallel run it may answer
        // after the usual 250 ms.
        try #require(TestScheduler.current).runtime.answerWait = .seconds(30)
        await withKnownIssue {
            await Task(executorPreference: globalConcurrentExecutor) { await TestScheduler.runCurrent() }.value
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("from a task that does not run on the body's scheduler") }
        }
    }

    @Test func withVirtualTimeReturnsWhatTheBodyReturns() async throws {
        let (slept, frame) = try await withVirtualTime(frame: .milliseconds(10)) { scheduler in
            let start = ContinuousClock.now
            try await Task.sleep(for: .seconds(3))
            return (ContinuousClock.now - start, scheduler.frame)
        }
        #expect(slept == .seconds(3))
        #expect(frame == .milliseconds(10))
    }

    // Found in session 29: what the driver reports at the run's end (here, work still out when
    // the bound passes) was said on its own thread, where Swift Testing found no test, and the
    // test passed.
    @Test func workStillOutWhenTheBoundPassesFailsTheTestThatRanIt() async throws {
        let never = DispatchSemaphore(value: 0)
        defer { never.signal() }
        try await withKnownIssue {
            try await withVirtualTime { scheduler in
                scheduler.foreignWorkTimeout = .milliseconds(100)
                DispatchQueue(label: "stuck").async { never.wait() }
                try await Task.sleep(for: .seconds(1))
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("a block submitted to queue 'stuck' at frame 0 has not finished after 0.1 s") }
        }
    }

    @Test func withVirtualTimeRethrowsWhatTheBodyThrows() async {
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await withVirtualTime { _ in
                try await Task.sleep(for: .seconds(1))
                throw Refused()
            }
        }
    }

    /// A body waiting for a continuation nothing resumes fails at once, naming what it waits for.
    @Test func aBodyWaitingForeverFailsSayingSo() async throws {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let end = scheduler.runBody(at: MarbleFailure.Location()) { _ in
            try await Task.sleep(for: .seconds(2))
            await withCheckedContinuation { NeverResumed.keep($0) }
        }
        guard case .unfinished(let error, _) = end else {
            Issue.record("the body should not have finished")
            return
        }
        #expect(error.description.hasPrefix("the test body was still suspended at frame 2000"))
        #expect(error.description.contains("a continuation nothing resumes"))
        #expect(reporter.failures.isEmpty)
    }

    /// A body that sleeps in a loop stops at the step limit, which names the task still sleeping.
    @Test func aBodyThatNeverEndsStopsAtTheStepLimit() async throws {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(stepLimit: 10_000, reporter: reporter)
        let end = scheduler.runBody(at: MarbleFailure.Location()) { _ in
            while true { try await Task.sleep(for: .seconds(1)) }
        }
        guard case .unfinished(let error, _) = end else {
            Issue.record("the body should not have finished")
            return
        }
        #expect(error.description.contains("when the step limit stopped the run"))
        let messages = reporter.failures.map(\.message)
        #expect(messages.count == 1)
        #expect(messages.first?.hasPrefix("the test scheduler ran 10000 steps") == true)
        // Issue 68: the body's own loop is named as such, and the fix is the knob of the body's run.
        #expect(messages.first?.contains("sleeping when it stopped:\n  the test body, until") == true)
        #expect(messages.first?.contains("pass maxFrames: N to .virtualTime(…) or withVirtualTime(…)") == true)
        #expect(messages.first?.contains("set scheduler.maxFrames") == false)
    }

    /// A ticker the body started that never stops: the run ends at `maxFrames`, without a failure.
    @Test(.virtualTime(maxFrames: 1_000)) func aTickerThatNeverStopsEndsTheRunAtMaxFrames() async throws {
        let ticks = Shared<Int>(0)
        Task {
            while true {
                try await Task.sleep(for: .milliseconds(100))
                ticks.update { $0 += 1 }
            }
        }
        try await Task.sleep(for: .milliseconds(550))
        #expect(ticks.value == 5)
    }

    /// The same knob set inside the body moves the end of the run under way (it was ignored).
    @Test(.virtualTime) func maxFramesSetInTheBodyEndsTheRunThere() async throws {
        let scheduler = try #require(TestScheduler.current)
        scheduler.maxFrames = 1_000
        Task {
            while true { try await Task.sleep(for: .milliseconds(100)) }
        }
        try await Task.sleep(for: .milliseconds(550))
        #expect(scheduler.now == .milliseconds(550))
    }

    @Test func aBodyStillWaitingAtMaxFramesIsToldSo() async throws {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.maxFrames = 100
        let end = scheduler.runBody(at: MarbleFailure.Location()) { _ in try await Task.sleep(for: .seconds(1)) }
        guard case .unfinished(let error, _) = end else {
            Issue.record("the body should not have finished")
            return
        }
        #expect(error.description == "the test body had not returned at frame 100, where maxFrames (100) ended the run; it was cancelled")
        #expect(reporter.failures.isEmpty)
    }

    @Test func withVirtualTimeThrowsForABodyThatNeverReturns() async throws {
        await #expect(throws: VirtualTimeBodyError.self) {
            try await withVirtualTime { _ in
                await withCheckedContinuation { NeverResumed.keep($0) }
            }
        }
    }

    /// Each test of the issue's example, many times over; under `--parallel` they run side by
    /// side, each on its own virtual time.
    @MainActor
    @Test(.virtualTime, arguments: 0..<100)
    func manyRunsEachOnItsOwnTime(_ run: Int) async throws {
        let model = PausingSearchModel(api: .stub)
        let start = ContinuousClock.now
        model.queryChanged("q\(run)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(model.results == ["Q\(run)"])
        #expect(ContinuousClock.now - start == .milliseconds(300))
    }
}

/// The trait on a suite: each test gets its own scheduler.
@Suite("A suite on virtual time", .virtualTime, .noPortabilityWarning)
struct VirtualTimeSuiteTests {
    @Test func firstTest() async throws {
        let scheduler = try #require(TestScheduler.current)
        try await Task.sleep(for: .seconds(10))
        #expect(scheduler.now == .seconds(10))
    }

    @Test func secondTestStartsAtZero() async throws {
        let scheduler = try #require(TestScheduler.current)
        #expect(scheduler.now == .zero)
        try await Task.sleep(for: .seconds(1))
        #expect(scheduler.now == .seconds(1))
    }
}

/// A list several tasks append to (from the driving thread and from Dispatch's).
final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ entry: String) { lock.withLock { list.append(entry) } }
    var entries: [String] { lock.withLock { list } }
}

/// Continuations nothing resumes, kept so that they are not reported as leaked.
enum NeverResumed {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var kept: [CheckedContinuation<Void, Never>] = []
    static func keep(_ continuation: CheckedContinuation<Void, Never>) { lock.withLock { kept.append(continuation) } }
}
