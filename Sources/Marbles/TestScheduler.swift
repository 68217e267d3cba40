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
/// Same-frame order is first scheduled, first run: subscriptions and unsubscriptions of
/// expectations are queued when `expect` is called, hot messages when the run starts (in
/// creation order), then whatever is scheduled during the run. Times in diagrams count from
/// the moment the expectation or observable was made; frames keep counting across flushes.
///
/// Single-threaded: use it from one thread.
public final class TestScheduler: Scheduler {
    /// The virtual time of one frame (`-`).
    public let frame: Duration
    /// The underlying virtual clock.
    public let virtual: VirtualTimeScheduler
    /// When set, a flush runs only up to this many frames past the time of the flush; work
    /// due later stays queued. `nil` runs until no work is left (or the step limit).
    public var maxFrames: Int?
    /// Where failures go.
    public let reporter: any MarbleFailureReporter
    /// Reads diagrams.
    public let parser: MarbleParser

    private var hotToSetUp: [() -> Void] = []
    /// Test observables made so far, erased, for ``ExpectationOutcome/inputs``.
    private var createdInputs: [(kind: DiagramKind, messages: [Recorded<Event<RecordedValue>>])] = []

    // Async support: created on first use.
    lazy var executor = TestTaskExecutor()
    var asyncClock: TestClock?
    var asyncRuns: [AsyncRun] = []
    var reportedEscapes = 0

    /// A `Clock` on this scheduler's virtual time, for async code under test: its
    /// `sleep(until:)` parks until virtual time reaches the deadline.
    public var clock: TestClock {
        if let asyncClock { return asyncClock }
        let clock = TestClock(scheduler: self)
        asyncClock = clock
        return clock
    }

    /// Called after each expectation is checked, passing or not (MarblesTesting uses it to
    /// write diagram specs when `MARBLES_DIAGRAM_DIR` is set).
    public var onExpectationChecked: ((ExpectationOutcome) -> Void)?
    private var checks: [(isReady: () -> Bool, check: () -> Void)] = []

    /// Creates a scheduler reporting to `reporter`. `MarblesTesting` adds `TestScheduler()`,
    /// which reports to the running test.
    ///
    /// - Parameters:
    ///   - frame: the virtual time of one `-`.
    ///   - stepLimit: how many actions one flush may run before it gives up and reports work
    ///     that never settles.
    public init(frame: Duration = .milliseconds(1), stepLimit: Int = 1_000_000, reporter: any MarbleFailureReporter) {
        self.frame = frame
        self.virtual = VirtualTimeScheduler(stepLimit: stepLimit)
        self.reporter = reporter
        self.parser = MarbleParser(frame: frame)
    }

    // MARK: Scheduler

    /// The virtual time.
    public var now: Duration { virtual.now }

    @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable { virtual.schedule(action) }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        virtual.schedule(after: delay, action)
    }

    // MARK: Test observables

    /// A cold observable whose values are looked up in `values`.
    public func cold<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> ColdObservable<Value> {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return cold(messages: parse(diagram, .cold, values, error, location))
    }

    /// A cold observable whose values are the diagram's characters (or quoted texts).
    public func cold(
        _ diagram: String, error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> ColdObservable<String> {
        cold(diagram, values: [String: String](), error: error, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A hot observable whose values are looked up in `values`.
    public func hot<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> HotObservable<Value> {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        return hot(messages: parse(diagram, .hot, values, error, location))
    }

    /// A hot observable whose values are the diagram's characters (or quoted texts).
    public func hot(
        _ diagram: String, error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> HotObservable<String> {
        hot(diagram, values: [String: String](), error: error, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A cold observable of messages built by hand (times relative to each subscription).
    public func cold<Value>(messages: [Recorded<Event<Value>>]) -> ColdObservable<Value> {
        let cold = ColdObservable(messages: messages, scheduler: self)
        createdInputs.append((.cold, cold.erasedMessages))
        return cold
    }

    /// A hot observable of messages built by hand (times relative to now; set up at the run's start).
    public func hot<Value>(messages: [Recorded<Event<Value>>]) -> HotObservable<Value> {
        let hot = HotObservable(messages: messages, scheduler: self)
        hotToSetUp.append(hot.setUp)
        createdInputs.append((.hot, hot.erasedMessages))
        return hot
    }

    /// The test observables made so far (cold and hot), in creation order.
    var inputsForOutcome: [(kind: DiagramKind, messages: [Recorded<Event<RecordedValue>>])] { createdInputs }

    private func parse<Value>(
        _ diagram: String, _ kind: DiagramKind, _ values: [String: Value], _ error: any Error, _ location: SourceLocation
    ) -> [Recorded<Event<Value>>] {
        do {
            return try parser.parse(diagram, kind: kind, values: values, error: error)
        } catch {
            reporter.report(MarbleFailure(message: error.description, location: location))
            return []
        }
    }

    /// The time up to the first `|` of `diagram` (RxJS `time()`), to pass to operators.
    public func time(
        _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> Duration {
        do {
            return try parser.time(diagram)
        } catch {
            reporter.report(
                MarbleFailure(
                    message: error.description,
                    location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)))
            return .zero
        }
    }

    // MARK: Expectations

    /// Subscribes to `observable` at the subscription diagram's `^` (default: now) and
    /// unsubscribes at its `!` (default: never); follow with `toBe`.
    public func expect<O: ObservableType>(
        _ observable: O, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> Expectation {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let expectation = Expectation(scheduler: self, origin: now)
        let (subscribeAt, unsubscribeAt) = subscriptionTimes(unsubscribe, location: location)
        let source = observable.asObservable()
        let subscription = SingleAssignmentDisposable()
        // Decided once: only observables of observables need the per-value check.
        let higherOrder = O.Element.self is any ObservableType.Type
        virtual.schedule(at: now + subscribeAt) { [unowned self] in
            subscription.set(
                source.subscribe { event in
                    let value = higherOrder ? self.erase(event) : event.map { RecordedValue.plain($0) }
                    expectation.actual.append(Recorded(time: self.now - expectation.origin, value: value))
                })
        }
        if let unsubscribeAt {
            virtual.schedule(at: now + unsubscribeAt) { subscription.dispose() }
        }
        return expectation
    }

    /// The `^` (default: frame 0) and `!` of an expectation's subscription diagram, relative to
    /// now; a malformed diagram is reported at the expectation and read as "subscribe now".
    func subscriptionTimes(_ diagram: String?, location: SourceLocation) -> (subscribe: Duration, unsubscribe: Duration?) {
        guard let diagram else { return (.zero, nil) }
        do {
            let parsed = try parser.parseSubscription(diagram)
            return (parsed.subscribe ?? .zero, parsed.unsubscribe)
        } catch {
            reporter.report(MarbleFailure(message: error.description, location: location))
            return (.zero, nil)
        }
    }

    /// Erases an event; an observable value is subscribed at once and recorded as an inner
    /// timeline relative to its emission.
    func erase<Value>(_ event: Event<Value>) -> Event<RecordedValue> {
        event.map { value in
            guard let inner = value as? any ObservableType else { return .plain(value) }
            return .inner(recordInner(inner))
        }
    }

    private func recordInner<O: ObservableType>(_ inner: O) -> InnerTimeline {
        let timeline = InnerTimeline()
        let start = now
        inner.asObservable().subscribe { [unowned self] event in
            timeline.events.append(Recorded(time: self.now - start, value: self.erase(event)))
        }
        return timeline
    }

    /// Compares subscription logs with diagrams when the run ends. The logs are read then, not
    /// now: pass the test observable's `subscriptions` directly.
    public func expect(
        subscriptions: @autoclosure @escaping () -> [SubscriptionLog],
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> SubscriptionExpectation {
        SubscriptionExpectation(scheduler: self, origin: now, logs: subscriptions)
    }

    func register(isReady: @escaping () -> Bool = { true }, _ check: @escaping () -> Void) {
        checks.append((isReady, check))
    }

    /// Subscribes to `observable` now and records its events, for custom checks after a flush.
    public func record<O: ObservableType>(_ observable: O) -> Recording<O.Element> {
        let recording = Recording<O.Element>()
        let origin = now
        recording.subscription = observable.asObservable().subscribe { [unowned self, unowned recording] event in
            recording.events.append(Recorded(time: self.now - origin, value: event))
        }
        return recording
    }

    // MARK: Running

    /// Runs `body`, then ``flush(fileID:filePath:line:column:)``; returns what `body` returns.
    @discardableResult
    public func run<Result>(
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
        _ body: () throws -> Result
    ) rethrows -> Result {
        let result = try body()
        flush(fileID: fileID, filePath: filePath, line: line, column: column)
        return result
    }

    /// Sets up hot observables created so far, runs virtual time until no work is left (or
    /// `maxFrames`), then checks every expectation whose `toBe` has been called. Frames keep
    /// counting; later expectations count from the time they are made.
    public func flush(fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        setUpHot()
        if !drive(until: maxFrames.map { now + frame * $0 }) {
            let frames = MarbleComparison.frameText(now, frame: frame)
            virtual.cancelAll()
            reporter.report(
                MarbleFailure(
                    message: """
                        the test scheduler ran \(virtual.stepLimit) steps and work was still due at \(frames): \
                        a source that never ends (an interval, a hot observable without '|', a retry loop, an async \
                        sequence that keeps sleeping) needs an unsubscription diagram, e.g. expect(obs, unsubscribe: "^---!"), \
                        or set maxFrames
                        """,
                    location: location))
        }
        finishAsyncRuns(location: location)
        let ready = checks.filter { $0.isReady() }
        checks.removeAll { $0.isReady() }
        for check in ready { check.check() }
    }

    /// Moves virtual time forward by `duration`, running what is due (hot observables are set
    /// up first).
    public func advance(
        by duration: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        advance(to: now + duration, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Moves virtual time forward to `time`, running what is due.
    public func advance(
        to time: Duration, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        setUpHot()
        if !drive(until: max(time, now)) {
            virtual.cancelAll()
            reporter.report(
                MarbleFailure(
                    message:
                        "the test scheduler ran \(virtual.stepLimit) steps before reaching \(MarbleComparison.frameText(time, frame: frame)): work that never settles",
                    location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)))
        }
    }

    private func setUpHot() {
        let pending = hotToSetUp
        hotToSetUp = []
        for setUp in pending { setUp() }
    }
}

/// What an observable under test should emit; see ``TestScheduler/expect(_:unsubscribe:fileID:filePath:line:column:)``.
public final class Expectation {
    private unowned let scheduler: TestScheduler
    let origin: Duration
    var actual: [Recorded<Event<RecordedValue>>] = []

    init(scheduler: TestScheduler, origin: Duration) {
        self.scheduler = scheduler
        self.origin = origin
    }

    /// The events recorded so far, relative to the time of `expect`.
    public var recorded: [Recorded<Event<RecordedValue>>] { actual }

    /// Expects the `diagram`, with values looked up in `values` (a test observable as a value
    /// stands for its timeline: an inner observable). Checked when the run ends; a failure is
    /// reported here.
    public func toBe<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let expected: [Recorded<Event<RecordedValue>>]
        do {
            let erasedValues = values.mapValues { RecordedValue.expected($0) }
            if values.isEmpty {
                expected = try scheduler.parser.parse(diagram, kind: .expected, error: error).map {
                    Recorded(time: $0.time, value: $0.value.map { .plain($0) })
                }
            } else {
                expected = try scheduler.parser.parse(diagram, kind: .expected, values: erasedValues, error: error)
            }
            let keys = erasedValues.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }
            let inputs = scheduler.inputsForOutcome
            scheduler.register { [self, scheduler] in
                let comparison = MarbleComparison(expected: expected, actual: actual, frame: scheduler.frame, keys: keys)
                if !comparison.matches {
                    scheduler.reporter.report(MarbleFailure(message: comparison.message(), location: location))
                }
                scheduler.onExpectationChecked?(
                    ExpectationOutcome(
                        location: location, inputs: inputs, expected: expected, actual: actual, mismatches: comparison.mismatches,
                        frame: scheduler.frame))
            }
        } catch {
            scheduler.reporter.report(MarbleFailure(message: error.description, location: location))
        }
    }

    /// Expects the `diagram`, whose values are its characters as Strings.
    public func toBe(
        _ diagram: String, error: any Error = MarbleError(),
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toBe(diagram, values: [String: String](), error: error, fileID: fileID, filePath: filePath, line: line, column: column)
    }
}

/// What subscriptions a test observable should have seen; see
/// ``TestScheduler/expect(subscriptions:fileID:filePath:line:column:)``.
public final class SubscriptionExpectation {
    private unowned let scheduler: TestScheduler
    private let origin: Duration
    private let logs: () -> [SubscriptionLog]

    init(scheduler: TestScheduler, origin: Duration, logs: @escaping () -> [SubscriptionLog]) {
        self.scheduler = scheduler
        self.origin = origin
        self.logs = logs
    }

    /// Expects exactly one subscription as drawn (`"^---!"`), or none (`"----"`).
    public func toBe(
        _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toBe([diagram], fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Expects these subscriptions, in subscription order; diagrams without `^` stand for none.
    public func toBe(
        _ diagrams: [String], fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        var expected: [SubscriptionLog] = []
        do {
            for diagram in diagrams {
                let parsed = try scheduler.parser.parseSubscription(diagram)
                if let subscribe = parsed.subscribe {
                    expected.append(SubscriptionLog(subscribed: subscribe, unsubscribed: parsed.unsubscribe))
                }
            }
        } catch {
            scheduler.reporter.report(MarbleFailure(message: error.description, location: location))
            return
        }
        scheduler.register { [self, scheduler] in
            let actual = logs().map {
                SubscriptionLog(subscribed: $0.subscribed - origin, unsubscribed: $0.unsubscribed.map { $0 - origin })
            }
            let comparison = SubscriptionComparison(expected: expected, actual: actual, frame: scheduler.frame)
            if !comparison.matches {
                scheduler.reporter.report(MarbleFailure(message: comparison.message(), location: location))
            }
        }
    }
}

/// One checked expectation: what went in, what was expected, what came out.
public struct ExpectationOutcome {
    /// The `toBe` call site.
    public var location: SourceLocation
    /// The test observables made before the expectation, in creation order.
    public var inputs: [(kind: DiagramKind, messages: [Recorded<Event<RecordedValue>>])]
    /// The expected events.
    public var expected: [Recorded<Event<RecordedValue>>]
    /// The recorded events.
    public var actual: [Recorded<Event<RecordedValue>>]
    /// The differences; empty when the expectation held.
    public var mismatches: [MarbleMismatch]
    /// The virtual time of one frame.
    public var frame: Duration

    /// Whether the expectation held.
    public var passed: Bool { mismatches.isEmpty }
}
