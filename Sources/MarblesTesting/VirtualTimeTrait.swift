public import Foundation
import MarbleCore
public import Marbles
public import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `body` on virtual time: as a task on a new `TestScheduler`'s executor, driven
/// until it returns and nothing is left to run. Virtual time moves only when nothing is ready,
/// so `try await Task.sleep(for: .seconds(600))` returns at once, in order with every other
/// sleep and timer; code under test that the body starts (its tasks, sleeps and clocks, Dispatch
/// timers, main-actor work, work on other threads) behaves as inside `scheduler.run { }`.
///
/// ```swift
/// func testShowsResultsAfterAPause() async throws {       // XCTest, or part of any test
///     try await withVirtualTime { scheduler in
///         let model = SearchModel(api: .stub)
///         model.queryChanged("swift")
///         try await Task.sleep(for: .milliseconds(300))
///         XCTAssertEqual(model.results, ["SWIFT"])
///     }
/// }
/// ```
///
/// When the body returns, the run ends as `run` ends: marble expectations made in it are
/// checked, test observables must have been unsubscribed, and async work still suspended is
/// reported. Main-actor work runs in the scheduler's loop on the thread that drives it, whether
/// or not the test is on the main actor.
///
/// - Parameters:
///   - frame: the virtual time of one `-` in diagrams.
///   - startDate: what `Date()` reads when the body starts: by default
///     ``VirtualTimeTrait/fixedStartDate`` (2000-01-01 00:00:00 UTC, as Go's `synctest` starts
///     every bubble), so date logic does not pass or fail by the day the test runs; `nil`: the
///     real date then.
///   - stepLimit: how many steps the run may take; a body still going then (a loop that keeps
///     sleeping) fails, naming the tasks still sleeping.
///   - maxFrames: where virtual time stops on purpose, in frames (`nil`: when nothing is left):
///     tasks the body started that keep sleeping then end the run there without a failure.
///   - fileID: where the run is reported (the caller's, by default); with `filePath`, `line`
///     and `column`.
///   - filePath: the caller's file path.
///   - line: the caller's line.
///   - column: the caller's column.
///   - body: the code on virtual time, given its scheduler (also `TestScheduler.current`).
/// - Returns: what `body` returns.
/// - Throws: what `body` throws, or `VirtualTimeBodyError` when it never returned.
public func withVirtualTime<Result: Sendable>(
    frame: Duration = .milliseconds(1), startDate: Date? = VirtualTimeTrait.fixedStartDate, stepLimit: Int = 1_000_000,
    maxFrames: Int? = nil, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
    _ body: @escaping @Sendable (TestScheduler) async throws -> Result
) async throws -> Result {
    let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
    // A fresh scheduler per call: tests in parallel each get their own virtual time.
    let reporter = RunReporter()
    let scheduler = TestScheduler(frame: frame, stepLimit: stepLimit, startDate: startDate, reporter: reporter, listener: .runningTest)
    scheduler.maxFrames = maxFrames
    // Read here, on the test's task: the driver's thread does not see the test's task-locals.
    scheduler.warnsOfPortability = TestScheduler.warnsOfPortability
    let end = await scheduler.runBodyOnItsOwnThread(at: location, body)
    reporter.sayHeld()
    switch end {
    case .finished(let result): return try result.get()
    // The closure is escaping: what is left of it may end later, on real time, harmlessly.
    case .unfinished(let error, _):
        // XCTest reports a thrown error at `<EXPR>:0`: the failure is said at the call site too.
        if Test.current == nil { TestFrameworkReporter().report(MarbleFailure(message: error.description, location: location)) }
        throw error
    }
}

extension TestScheduler {
    /// Lets everything due at the current instant run, without moving virtual time, then
    /// returns: the jobs that are ready and those they make ready, timers due now, and work
    /// handed to other threads (Go's `synctest.Wait`, Kotlin's `runCurrent`). Call it from a test
    /// body on virtual time (`withVirtualTime`, the `.virtualTime` trait), on the body's own task.
    /// Called anywhere else it runs nothing, and the test fails at the call, saying why.
    public static func runCurrent(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) async {
        guard let misuse = await runCurrentIfDriving() else { return }
        let why =
            switch misuse {
            case .outsideBody:
                "outside a test body on virtual time: call it inside @Test(.virtualTime) or withVirtualTime { } "
                    + "(in scheduler.run { }, scheduler.advance(by: .zero) runs what is due now)"
            case .offTheDrivingThread:
                "from a task that does not run on the body's scheduler (a detached task, or one on another "
                    + "executor): call it from the test body's own task"
            }
        TestFrameworkReporter().report(
            MarbleFailure(
                message: "TestScheduler.runCurrent() ran nothing: it was called \(why)",
                location: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)))
    }

    /// ``runCurrent(fileID:filePath:line:column:)`` on this scheduler, the body's
    /// (`scheduler.runCurrent()` in `withVirtualTime { scheduler in … }`): called on another
    /// scheduler than the running body's, it runs nothing and the test fails at the call.
    public func runCurrent(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) async {
        guard let current = TestScheduler.current, current !== self else {
            return await TestScheduler.runCurrent(fileID: fileID, filePath: filePath, line: line, column: column)
        }
        TestFrameworkReporter().report(
            MarbleFailure(
                message: "scheduler.runCurrent() ran nothing: this scheduler is not the running body's; call it on "
                    + "TestScheduler.current, the scheduler withVirtualTime { scheduler in … } passes",
                location: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)))
    }
}

/// A test trait that runs the test's body on virtual time (``withVirtualTime(frame:startDate:stepLimit:maxFrames:fileID:filePath:line:column:_:)``):
///
/// ```swift
/// @Test(.virtualTime) func showsResultsAfterAPause() async throws {
///     let model = SearchModel(api: .stub)
///     model.queryChanged("swift")
///     try await Task.sleep(for: .milliseconds(300))   // no real time passes
///     #expect(model.results == ["SWIFT"])
/// }
/// ```
///
/// On a suite (`@Suite(.virtualTime)`) it applies to each of its tests, each with its own
/// scheduler. Inside, `TestScheduler.current` is the test's scheduler, for marble
/// expectations between awaits.
public struct VirtualTimeTrait: TestTrait, SuiteTrait, TestScoping {
    /// The virtual time of one `-` in diagrams.
    public var frame: Duration
    /// What `Date()` reads when the test starts (`nil`: the real date then); by default ``fixedStartDate``.
    public var startDate: Date?
    /// Where `Date()` starts in a test on virtual time unless the test says otherwise:
    /// 2000-01-01 00:00:00 UTC, the instant Go's `synctest` starts every bubble at. One fixed
    /// instant keeps date logic (month ends, time zones, daylight saving) from passing or failing
    /// by the day the test runs; pass `startDate:` for another, or `nil` for the real date.
    public static let fixedStartDate = Date(timeIntervalSince1970: 946_684_800)
    /// How many steps a test may take before it fails as one that never ends.
    public var stepLimit: Int
    /// Where virtual time stops on purpose, in frames (`nil`: when nothing is left to run).
    public var maxFrames: Int? = nil

    /// Each test of a suite gets its own virtual time.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else { return try await function() }
        let source = test.sourceLocation
        let location = MarbleFailure.Location(fileID: source.fileID, filePath: source.filePath, line: source.line, column: source.column)
        let reporter = RunReporter()
        let scheduler = TestScheduler(frame: frame, stepLimit: stepLimit, startDate: startDate, reporter: reporter, listener: .runningTest)
        scheduler.maxFrames = maxFrames
        scheduler.warnsOfPortability = TestScheduler.warnsOfPortability
        try await withoutActuallyEscaping(function) { function in
            let end = await scheduler.runBodyOnItsOwnThread(at: location, { _ in try await function() })
            reporter.sayHeld()
            switch end {
            case .finished(let result): try result.get()
            case .unfinished(let error, let task):
                TestFrameworkReporter().report(MarbleFailure(message: error.description, location: location))
                // Swift Testing's closure must not outlive this call: wait for the cancelled body,
                // now on real time. One that ignores its cancellation (a continuation nothing
                // resumes) could only keep the test, and the whole run, waiting until a CI time
                // limit kills it and its log: the process ends instead, with the failure said.
                if await !HungBody.ends(task) { HungBody.endProcess(test.name, at: location, error) }
            }
        }
    }
}

extension Trait where Self == VirtualTimeTrait {
    /// Runs the test's async body on virtual time, 1 ms frames, `Date()` starting at
    /// ``VirtualTimeTrait/fixedStartDate`` (``VirtualTimeTrait``).
    public static var virtualTime: Self {
        VirtualTimeTrait(frame: .milliseconds(1), startDate: VirtualTimeTrait.fixedStartDate, stepLimit: 1_000_000)
    }

    /// Runs the test's async body on virtual time with this frame, start date (`nil`: the real
    /// date), step limit and frame to stop at (`maxFrames`, `nil`: when nothing is left to run;
    /// tasks the body started that keep sleeping then end the run there without a failure).
    public static func virtualTime(
        frame: Duration = .milliseconds(1), startDate: Date? = VirtualTimeTrait.fixedStartDate, stepLimit: Int = 1_000_000,
        maxFrames: Int? = nil
    ) -> Self {
        VirtualTimeTrait(frame: frame, startDate: startDate, stepLimit: stepLimit, maxFrames: maxFrames)
    }
}

/// A test trait that turns off the portability warning for a test or a suite: the warning that
/// a run's code read `Date()`, `ContinuousClock.now` or `DispatchTime.now()`, which read virtual
/// time on Linux but real time on Apple platforms. For suites that run on Linux only, or whose
/// reads are the point (a test of the virtual clocks). `MARBLES_PORTABILITY_WARNING=0` turns it
/// off for the whole process.
public struct NoPortabilityWarningTrait: TestTrait, SuiteTrait, TestScoping {
    /// Each test of a suite.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Inside `.virtualTime`, the scheduler is already running: tell it directly.
        TestScheduler.current?.warnsOfPortability = false
        try await TestScheduler.$warnsOfPortability.withValue(false) { try await function() }
    }
}

extension Trait where Self == NoPortabilityWarningTrait {
    /// Turns off the portability warning for this test or suite (``NoPortabilityWarningTrait``).
    public static var noPortabilityWarning: Self { NoPortabilityWarningTrait() }
}

/// A test body on virtual time that was cancelled and does not end (``VirtualTimeTrait``).
enum HungBody {
    /// How long a cancelled body gets to end, in real time.
    static let grace: Duration = .milliseconds(500)

    /// `MARBLES_HUNG_BODY=wait` keeps a test whose body ignores its cancellation waiting for it
    /// (for a debugger), instead of ending the process.
    static let waits = ProcessInfo.processInfo.environment["MARBLES_HUNG_BODY"]?.lowercased() == "wait"

    /// Whether `task` ended within ``grace`` (always, in the end, when ``waits``).
    static func ends(_ task: Task<Void, Never>) async -> Bool {
        if waits {
            await task.value
            return true
        }
        let race = Race()
        return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            race.set(done)
            Task.detached {
                await task.value
                race.finish(true)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(grace.clampedNanoseconds))) {
                race.finish(false)
            }
        }
    }

    /// Says why on standard error, then ends the process with exit code 1.
    static func endProcess(_ test: String, at location: MarbleFailure.Location, _ error: VirtualTimeBodyError) -> Never {
        let text = """
            \(location.filePath):\(location.line):\(location.column): error: \(test): \(error.description)
              The body ignored its cancellation for \(grace) of real time, and a test cannot end while its body runs: \
            this test process ends here, with exit code 1, rather than wait until a time limit kills it and its log. \
            (MARBLES_HUNG_BODY=wait waits for the body instead.)

            """
        fflush(nil)
        _ = Array(text.utf8).withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        _exit(1)
    }

    /// The first of two answers.
    private final class Race: @unchecked Sendable {
        private let lock = Lock()
        private var continuation: CheckedContinuation<Bool, Never>?
        private var answer: Bool?

        func set(_ continuation: CheckedContinuation<Bool, Never>) {
            let given = lock.withLock { () -> Bool? in
                if answer == nil { self.continuation = continuation }
                return answer
            }
            if let given { continuation.resume(returning: given) }
        }

        func finish(_ value: Bool) {
            let waiting = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
                guard answer == nil else { return nil }
                answer = value
                defer { continuation = nil }
                return continuation
            }
            waiting?.resume(returning: value)
        }
    }
}
