package import MarblesRuntime

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A virtual-time scheduler for marble tests: creates hot and cold test observables from
/// diagrams, records what observables under test emit, and compares the recordings with
/// expected diagrams when the run ends.
///
/// ```swift
/// let scheduler = TestScheduler()   // MarblesTesting: reports to Swift Testing or XCTest
/// scheduler.run {
///     let source = scheduler.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
///     scheduler.expect(source.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 30])
///     scheduler.expect(subscriptions: source.subscriptions).toBe("^--------!")
/// }
/// ```
///
/// Its surface, by role:
/// - test observables: ``cold(_:values:error:name:fileID:filePath:line:column:)``,
///   ``hot(_:values:error:name:fileID:filePath:line:column:)``, ``time(_:fileID:filePath:line:column:)``;
/// - expectations: `expect(_:unsubscribe:)` and
///   `expect(subscriptions:)` (the test observable, or its `subscriptions`), each followed by `toBe`;
///   ``record(_:)`` for custom checks;
/// - running: ``run(fileID:filePath:line:column:_:)``, ``flush(fileID:filePath:line:column:)``,
///   ``advance(by:fileID:filePath:line:column:)``, ``advance(to:fileID:filePath:line:column:)``;
/// - async code: ``clock``, the `expect` overloads for `AsyncSequence`, and
///   ``expect(observing:unsubscribe:fileID:filePath:line:column:)`` for `@Observable` models;
///   `Task.sleep` and main-actor work run on virtual time too (<doc:AsyncOnVirtualTime>).
///
/// Same-frame order is first scheduled, first run: subscriptions and unsubscriptions of
/// expectations are queued when `expect` is called, hot messages when the run starts (in
/// creation order), then whatever is scheduled during the run. Times in diagrams count from
/// the moment the expectation or observable was made; frames keep counting across flushes.
///
/// Single-threaded by contract: use it from one thread. An expectation whose `toBe` was never
/// checked (no `run`/`flush` after it) fails at its `toBe` line when the scheduler goes away.
public final class TestScheduler: Scheduler {
    /// The virtual time of one frame (`-`).
    public let frame: Duration
    /// When set, a flush runs only up to this many frames past the time of the flush; work
    /// due later stays queued. `nil` runs until no work is left (or the step limit). Set in a
    /// test body on virtual time (`TestScheduler.current?.maxFrames`), it moves the end of the
    /// run under way.
    public var maxFrames: Int? {
        get { state.maxFrames }
        set {
            state.maxFrames = newValue
            if let start = state.flushStart { runtime.moveDriveLimit(to: newValue.map { start + frame * $0 }) }
        }
    }
    /// How long a run waits, in real time, for work the code under test handed to another thread
    /// (a block on a `DispatchQueue`, a `Thread`, an actor's job on its own executor) before it
    /// reports that work and goes on; 10 s. While such work is out, virtual time does not move.
    public var foreignWorkTimeout: Duration {
        get { runtime.foreignWorkTimeout }
        set { runtime.foreignWorkTimeout = newValue }
    }
    /// Whether this scheduler warns when the code under test reads the system clocks (see
    /// `noteSystemClockReads`); MarblesTesting's `.noPortabilityWarning` trait turns it off.
    package var warnsOfPortability = true
    /// Who hears about this scheduler's expectations beyond its reporter (given at init).
    package let listener: TestScheduler.Listener
    var testName: String? { listener.testName }

    /// What `Date()` reads when the scheduler first drives (`nil`: the real date then).
    public let startDate: Date?
    /// The virtual clock underneath; internal so that every run goes through ``flush(fileID:filePath:line:column:)``.
    @usableFromInline package let virtual: VirtualTimeScheduler
    /// Where failures go.
    package let reporter: any MarbleFailure.Reporter
    /// Reads diagrams at this scheduler's frame.
    @usableFromInline package let parser: MarbleDiagram.Parser

    /// What a run accumulates: test observables, expectations, the harness's subscriptions, async
    /// runs. Used from the test's thread only, never in overlapping accesses (every loop over a
    /// list works on a copy), and kept in one stored property so that it costs one opt-out of the
    /// runtime's exclusivity checks, not one per list.
    // measured: with each list checked (and the runtime's, the clocks' and the executor's
    // state), an empty run took 1.57× and a 10-event test 1.33× the time of 40fe785; unchecked,
    // 1.01× and 1.06× (scripts/profile-ab.py, release, min of 5; perf: the checks and their
    // thread-local lookups were a third of the difference).
    @exclusivity(unchecked) @usableFromInline var state = RunState()
    /// Why the latest flush stopped early (runaway work at the step limit), if it did.
    package var runawayReason: String? { state.runawayReason }
    /// ``RunState/testObservables`` as an outcome lists them.
    var createdInputs: [ExpectationOutcome.Input] { state.testObservables.map(ExpectationOutcome.Input.init) }

    /// The async runtime (MarblesRuntime): the executor, clocks, sleeps and drive loop of the
    /// async code under test. The one seam between synchronous virtual time and async code.
    package let runtime: VirtualRuntime
    /// The executor the async code under test runs on.
    package var executor: TestTaskExecutor { runtime.executor }
    /// The system clocks as the code under test reads them while this scheduler drives.
    package var clocks: VirtualClocks { runtime.clocks }

    /// Creates a scheduler reporting to `reporter`. `MarblesTesting` adds `TestScheduler()`,
    /// which reports to the running test.
    ///
    /// - Parameters:
    ///   - frame: the virtual time of one `-`.
    ///   - stepLimit: how many actions (and synchronous resubscriptions) one flush may run
    ///     before it gives up and reports work that never settles.
    ///   - startDate: what `Date()` reads in the code under test when the scheduler first runs
    ///     (on Linux, where the system clocks read virtual time inside a run); `nil`, the
    ///     default, is the real date at that moment.
    ///   - reporter: where failures go.
    public convenience init(
        frame: Duration = .milliseconds(1), stepLimit: Int = 1_000_000, startDate: Date? = nil, reporter: any MarbleFailure.Reporter
    ) {
        self.init(frame: frame, stepLimit: stepLimit, startDate: startDate, reporter: reporter, listener: Listener())
    }

    /// The same, with a listener for checked expectations (MarblesTesting's diagram writer and
    /// record mode).
    package init(
        frame: Duration = .milliseconds(1), stepLimit: Int = 1_000_000, startDate: Date? = nil,
        reporter: any MarbleFailure.Reporter, listener: TestScheduler.Listener
    ) {
        self.frame = frame
        self.startDate = startDate
        self.listener = listener
        self.virtual = VirtualTimeScheduler(stepLimit: stepLimit)
        let runtime = VirtualRuntime(virtual: virtual, startDate: startDate)
        self.runtime = runtime
        if listener.testName != nil { runtime.watchTestName = listener.testName }
        self.reporter =
            VirtualClocks.portable
            ? MarbleFailure.PortableModeNote(base: reporter) { [weak clocks = runtime.clocks] in clocks?.realReads() ?? [] }
            : reporter
        self.parser = MarbleDiagram.Parser(frame: frame)
    }

    /// From the first awaited task on (an async expectation's, a test body's), the runtime asks
    /// whether one is suspended before it ends a run (tests of observables make no closure).
    func watchAwaitedTasks() {
        guard runtime.awaitsAnswer == nil else { return }
        runtime.awaitsAnswer = { [unowned self] in awaitsAnswer }
    }

    /// Whether a task this scheduler's run awaits is suspended: an async expectation's or a test
    /// body's, started and not finished.
    var awaitsAnswer: Bool {
        runtime.bodyTask != nil || state.asyncRuns.contains { $0.started && !$0.finished && !$0.cancelled }
    }

    deinit {
        // A forgotten run/flush must not pass silently.
        for check in state.checks {
            reporter.report(
                MarbleFailure(
                    message: """
                        this expectation was never checked: the test ended before virtual time ran. \
                        Wrap the test in scheduler.run { … } or call scheduler.flush() after toBe
                        """,
                    location: check.location))
        }
    }

    /// A `Clock` on this scheduler's virtual time, for async code under test: its
    /// `sleep(until:)` parks until virtual time reaches the deadline.
    public var clock: TestClock {
        if let clock = state.testClock { return clock }
        let clock = TestClock(scheduler: self)
        state.testClock = clock
        return clock
    }

    // MARK: Scheduler

    /// The virtual time.
    public var now: Duration { virtual.now }

    /// Schedules `action` now, after what is already due now.
    /// - Complexity: O(log n)
    @inlinable @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable { virtual.schedule(action) }

    /// Schedules `action` `delay` from now.
    /// - Complexity: O(log n)
    @inlinable @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        virtual.schedule(after: delay, action)
    }

    /// Reports a failure at `location`.
    @usableFromInline func report(_ message: String, at location: MarbleFailure.Location) {
        reporter.report(MarbleFailure(message: message, location: location))
    }
}

extension TestScheduler {
    /// Who hears about a ``TestScheduler``'s expectations beyond its reporter: the layer above
    /// (MarblesTesting) passes one at init, with the test's name, its diagram writer
    /// (`MARBLES_DIAGRAM_DIR`) and record mode (`MARBLES_RECORD=1`).
    package struct Listener {
        /// The name of the running test, when known; written into diagram specs.
        package var testName: String?
        /// Called after each expectation is checked, passing or not.
        package var expectationChecked: ((ExpectationOutcome) -> Void)?
        /// Called after an expectation failed, with what it compared (MarblesTesting attaches
        /// its diagram to the running test). Never called for one that held: passing tests pay
        /// nothing for it.
        package var expectationFailed: ((ExpectationOutcome) -> Void)?
        /// Record mode: called when a `toBe` with a diagram fails, with the diagram that would
        /// pass (or why none can be written); returns a line for the failure message (what was
        /// rewritten, or why not).
        package var recordDiagram: ((RecordingProposal) -> String)?

        /// A listener; every part is optional.
        package init(
            testName: String? = nil, expectationChecked: ((ExpectationOutcome) -> Void)? = nil,
            expectationFailed: ((ExpectationOutcome) -> Void)? = nil, recordDiagram: ((RecordingProposal) -> String)? = nil
        ) {
            self.testName = testName
            self.expectationChecked = expectationChecked
            self.expectationFailed = expectationFailed
            self.recordDiagram = recordDiagram
        }
    }
}

extension TestScheduler {
    /// What a run accumulates (``TestScheduler/state``).
    @usableFromInline struct RunState {
        /// Hot observables to set up when the run starts.
        @usableFromInline var hotToSetUp: [() -> Void] = []
        /// Test observables made so far, in creation order: what ``ExpectationOutcome/inputs``
        /// lists, and what the leak check reads when a run ends.
        @usableFromInline var testObservables: [any TestObservableMessages] = []
        /// The last diagram of characters parsed, with its kind and messages (see
        /// ``TestScheduler/parseKeepingLast(_:_:_:_:)``).
        var lastParsed: (diagram: String, kind: MarbleDiagram.Kind, messages: [Recorded<Event<String>>])?
        /// Expectations whose `toBe` was called and that have not been checked yet.
        var checks: [PendingCheck] = []
        /// Why the latest flush stopped early (runaway work at the step limit), if it did.
        var runawayReason: String?
        /// Subscriptions the harness made (expectations, recordings, inner timelines); `run`
        /// disposes them when it ends, then checks that every test observable was unsubscribed.
        @usableFromInline var harnessSubscriptions: [any Disposable] = []
        /// The async expectations of the current run.
        var asyncRuns: [AsyncRun] = []
        /// The scheduler's `clock`, once made.
        var testClock: TestClock?
        /// Runs begun (`run { }`).
        var runsBegun = 0
        /// Whether driving outside any run, with async code in play, was reported.
        var reportedOutsideRun = false
        /// Whether the code under test's system clock reads were noted.
        var reportedClockReads = false
        /// ``TestScheduler/maxFrames`` (read by every flush), and the time the flush under way
        /// began at (`nil`: none), which it counts from.
        var maxFrames: Int?
        var flushStart: Duration?
        /// Whether a test body on virtual time is this scheduler's run (`withVirtualTime`, the trait).
        var runsBody = false
        /// Whether virtual time is being driven (a flush or an advance): a hot observable made
        /// now, by a test body on virtual time, is set up at once.
        @usableFromInline var driving = false
        /// What most tests never touch, made on first use (``TestScheduler/rare``): a test of
        /// observables then neither makes nor destroys it.
        var rare: Rare?

        @usableFromInline init() {}
    }

    /// The run state's rarer parts.
    final class Rare {
        /// A runaway loop found while subscribing outside a flush (`record(_:)`), reported by the next flush.
        var pendingRunaway: String?
        /// Open subscriptions the test expected to stay open (a subscription diagram without `!`
        /// that matched): not leaks. By the observable's identity and the subscription's time.
        var expectedOpen: Set<OpenSubscription> = []
        /// Escaped work already reported (counts only grow; each flush reports what is new).
        var reportedEscapes = 0
        /// The clock a busy wait was reported on, whose reads the portability note leaves out.
        var busyWaitClock: String?
        /// A deadlock of the run's members was reported by this flush: a task it left suspended
        /// is part of it, not reported again.
        var reportedDeadlock = false
    }

    var rare: Rare {
        if let rare = state.rare { return rare }
        let rare = Rare()
        state.rare = rare
        return rare
    }
}

/// A subscription of one test observable, by the observable's identity and its start.
struct OpenSubscription: Hashable {
    var owner: UInt
    var subscribed: Duration
}

/// An expectation waiting for the end of a run.
struct PendingCheck {
    let location: MarbleFailure.Location
    let isReady: () -> Bool
    /// What it watches, which says whether it is over (ended, or unsubscribed at its `!`): such
    /// a check runs even when the step limit cut the run short.
    let window: (any CheckWindow)?
    /// The comparison, given the scheduler (which the check does not capture: it holds the check).
    let check: (TestScheduler) -> Void

    func windowClosed() -> Bool { window?.windowClosed ?? false }
}

/// What an expectation watches, as the step limit asks it (an object: a check holds it without
/// a closure of its own).
protocol CheckWindow: AnyObject {
    /// Whether the recording is over: ended, or unsubscribed at its `!`.
    var windowClosed: Bool { get }
}

extension TestScheduler: VirtualTimeBacked {
    /// The virtual clock underneath: timing operators schedule their timers on it directly.
    package var virtualTimeScheduler: VirtualTimeScheduler { virtual }
}
