#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a structured async operator under test sends its values; see
/// ``TestScheduler/expect(emitting:unsubscribe:fileID:filePath:line:column:_:)``.
///
/// Call it from the test's own tasks (the body, its task-group children, `async let`); a call
/// from another thread is dropped and fails the test as escaped work.
public struct AsyncEmitter<Element>: @unchecked Sendable {
    let emit: (Element) -> Void

    /// Records `element` at the current virtual time.
    public func callAsFunction(_ element: Element) { emit(element) }

    /// Records `element` at the current virtual time.
    public func yield(_ element: Element) { emit(element) }
}

/// What an async expectation's task does: run the work, record what it produces.
struct AsyncWork<Element> {
    let expectation: MarbleExpectation<Element>
    let run: AsyncRun
    let work: (_ record: @escaping (Event<Element>) -> Void) async throws -> Void

    func perform() async {
        let record = { (event: Event<Element>) in
            guard !run.cancelled else { return }
            expectation.record(event)
        }
        var failure: (any Error)?
        do {
            try await work(record)
        } catch {
            failure = error
        }
        if let failure {
            if !(run.cancelled && failure is CancellationError) { record(.error(failure)) }
        } else {
            record(.completed)
        }
        run.finished = true
    }
}

/// One async expectation's task and state, touched only on the scheduler's thread.
final class AsyncRun {
    let location: MarbleSourceLocation
    var task: Task<Void, Never>?
    var finished = false
    var cancelled = false
    var started = false
    init(location: MarbleSourceLocation) { self.location = location }
}

extension TestScheduler {
    /// Iterates `sequence` in a task on the scheduler's executor from the subscription
    /// diagram's `^` (default: now), cancels that task at its `!`, and records every element,
    /// the end (`|`) or the thrown error (`#`) at its virtual time; follow with `toBe`.
    ///
    /// At the `!` frame, what the sequence delivers at that instant is still recorded, then the
    /// task is cancelled. After the end, `next()` is called once more: a sequence that then
    /// produces or throws breaks the iterator contract, and the test fails saying so.
    ///
    /// ```swift
    /// scheduler.run {
    ///     let input = scheduler.cold("a-b---c-|", values: ["a": 1, "b": 2, "c": 3])
    ///     scheduler.expect(input.values.map { $0 * 10 }).toBe("a-b---c-|", values: ["a": 10, "b": 20, "c": 30])
    /// }
    /// ```
    ///
    /// Deterministic for structured tasks and for `Task { }`/`Task.detached` started while the
    /// scheduler drives (swift-async-algorithms' `debounce` and `merge` start such tasks
    /// internally): the runtime's hooks route them onto the scheduler's executor, with
    /// `Task.sleep` on virtual time and, when the test runs on the main actor, main-actor work.
    /// Work that hops to another executor (a `DispatchQueue`, an actor with its own executor)
    /// and reaches the scheduler's clock or executor from there fails the test and says so.
    public func expect<S: AsyncSequence>(
        _ sequence: S, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> MarbleExpectation<S.Element> {
        let location = MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let box = UncheckedSendable(sequence)
        return startAsync(unsubscribe: unsubscribe, location: location) { [weak self] record in
            var iterator = box.value.makeAsyncIterator()
            while let element = try await iterator.next() { record(.next(element)) }
            // The iterator contract: once `next()` returned nil it keeps returning nil. Asked once
            // more (as swift-async-algorithms' validation harness does), a broken sequence shows.
            do {
                if let extra = try await iterator.next() {
                    self?.report("the sequence produced \(extra) past its end (next() returned nil, then a value)", at: location)
                }
            } catch {
                if !Task.isCancelled {
                    self?.report("the sequence threw \(error) past its end (next() returned nil, then threw)", at: location)
                }
            }
        }
    }

    /// Runs `body` in a task on the scheduler's executor from the subscription diagram's `^`
    /// (default: now) and records what it emits; returning records completion, throwing
    /// records the error. For structured operators (task groups, `async let`) that push
    /// their output instead of returning a sequence.
    ///
    /// ```swift
    /// scheduler.expect(emitting: Int.self) { emit in
    ///     try await withThrowingTaskGroup(of: Void.self) { group in … emit(value) … }
    /// }.toBe("--a--b|", values: ["a": 1, "b": 2])
    /// ```
    public func expect<Element>(
        emitting: Element.Type = Element.self, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
        _ body: @escaping (AsyncEmitter<Element>) async throws -> Void
    ) -> MarbleExpectation<Element> {
        let location = MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let box = UncheckedSendable(body)
        return startAsync(unsubscribe: unsubscribe, location: location) { [executor] record in
            try await box.value(
                AsyncEmitter { element in
                    guard executor.isOwnerThread else {
                        executor.noteForeignEmission()
                        return
                    }
                    record(.next(element))
                })
        }
    }

    private func startAsync<Element>(
        unsubscribe: String?, location: MarbleSourceLocation,
        _ work: @escaping (_ record: @escaping (Event<Element>) -> Void) async throws -> Void
    ) -> MarbleExpectation<Element> {
        let expectation = MarbleExpectation<Element>(scheduler: self, origin: now, window: unsubscribe)
        let (subscribeAt, unsubscribeAt) = subscriptionTimes(unsubscribe, location: location)
        let run = AsyncRun(location: location)
        asyncRuns.append(run)
        let state = UncheckedSendable(AsyncWork(expectation: expectation, run: run, work: work))
        virtual.schedule(at: now + subscribeAt) { [executor] in
            guard !run.cancelled else { return }
            run.started = true
            run.task = Task(executorPreference: executor) { await state.value.perform() }
        }
        if let unsubscribeAt {
            // A consumer cancelled at an instant still sees what is delivered at that instant (the
            // iterator hands over what was produced before it observes the cancellation): the
            // cancel goes after the work already due then.
            virtual.schedule(at: now + unsubscribeAt) { [virtual] in
                virtual.schedule(at: virtual.now) {
                    run.cancelled = true
                    run.task?.cancel()
                }
            }
        }
        return expectation
    }

    /// After a flush: cancels async work still running (as at an unsubscription), wakes
    /// parked sleepers, and reports work that escaped to other threads.
    func finishAsyncRuns(location: MarbleSourceLocation) {
        reportSleepsAndMainActorWork(location: location)
        guard !asyncRuns.isEmpty || asyncClock != nil else { return }
        // A task still suspended when nothing is left to run waits for something that will not
        // come on this timeline: work on another thread, or an input that never ends. Either
        // way the test says so (unless `maxFrames` cut the run short on purpose).
        let unfinished = asyncRuns.filter { $0.started && !$0.finished && !$0.cancelled }
        for run in unfinished {
            run.cancelled = true
            run.task?.cancel()
        }
        if asyncClock != nil { clock.cancelAll() }
        _ = executor.runUntilIdle(limit: virtual.stepLimit)
        asyncRuns.removeAll { $0.finished || $0.cancelled }
        if escapeCount == reportedEscapes, maxFrames == nil, let stalled = unfinished.first {
            reporter.report(
                MarbleFailure(
                    message: """
                        the async sequence under test was still suspended when nothing was left to run on the test \
                        scheduler: it waits either for work outside the test scheduler (a DispatchQueue timer, an actor \
                        with its own executor, MainActor in a test not marked @MainActor, a clock whose now it compares \
                        with a deadline: give it scheduler.clock) or for an input that never ends (add an unsubscription diagram, e.g. expect(sequence, unsubscribe: "-----!"), \
                        to cancel it on purpose)
                        """,
                    location: stalled.location))
        }
        if escapeCount > reportedEscapes {
            reportedEscapes = escapeCount
            reporter.report(
                MarbleFailure(
                    message: """
                        async work reached the test scheduler from another thread (\(executor.foreignEnqueueCount) job(s) \
                        enqueued, \(asyncClock?.foreignAccessCount ?? 0) clock use(s), \(executor.foreignEmissionCount) emission(s) \
                        off its thread): some of it ran outside the test scheduler (on a DispatchQueue, on an actor with \
                        its own executor, or in a task started before the scheduler ran), so its timing is racy and cannot \
                        be tested on virtual time. Keep the code under test on the scheduler: avoid hops to other queues, \
                        start its tasks inside scheduler.run { }, and mark the test @MainActor for main-actor code
                        """,
                    location: unfinished.first?.location ?? location))
        }
    }

    /// Puts a system-clock sleep of the code under test on virtual time: its job runs when
    /// virtual time reaches the end of the sleep (see ``SleepDeadline``).
    func scheduleSleep(_ job: UnownedJob, exact: Duration?, remaining: Duration, at real: ContinuousClock.Instant, clock: Any.Type?) {
        let sleep: SleepDeadline
        if let exact {
            sleep = SleepDeadline(exactly: exact, clock: clock)
        } else {
            // This instant is noted once any job exists, and a sleep is one; should it not be, the
            // bound is the sleep's own arrival (the read was just before).
            let instants = recentInstants.last?.time == now ? recentInstants : [SleepDeadline.Instant(time: now, real: real)]
            sleep = SleepDeadline(remaining: remaining, instants: instants, arrival: real, now: now, clock: clock)
        }
        if sleep.ambiguousRange != nil { ambiguousSleeps.append((now, sleep)) }
        virtual.schedule(at: now + sleep.delay) { [executor] in executor.enqueueRouted(job) }
    }

    private func reportSleepsAndMainActorWork(location: MarbleSourceLocation) {
        let ambiguous = ambiguousSleeps
        ambiguousSleeps = []
        for (start, sleep) in ambiguous {
            guard let range = sleep.ambiguousRange else { continue }
            reporter.report(
                MarbleFailure(
                    message: """
                        a sleep on \(sleep.clockName) started at \(frameText(start, frame: frame)) has no duration that can be \
                        told: Task.sleep hands the runtime a deadline on the real clock, and the duration read back from it \
                        lies between \(range.lowerBound) and \(range.upperBound) (the task ran that long in real time before \
                        it slept), which holds more than one round value; it slept \(sleep.duration) of virtual time. Sleep \
                        right after computing the deadline, use a rounder duration, or sleep on scheduler.clock
                        """,
                    location: location))
        }
        let mainEscapes = executor.mainActorEscapes.load(ordering: .relaxed)
        if mainEscapes > reportedMainActorEscapes {
            reportedMainActorEscapes = mainEscapes
            reporter.report(
                MarbleFailure(
                    message: """
                        the code under test started \(mainEscapes) main-actor job(s), but this test does not run on the main \
                        actor, so they ran on the main queue in real time, outside the test scheduler. Mark the test \
                        @MainActor (Swift Testing: @MainActor @Test; XCTest: a synchronous test method, which runs on the \
                        main thread, its body in MainActor.assumeIsolated { }): the scheduler then runs main-actor work in \
                        its loop, on virtual time
                        """,
                    location: location))
        }
    }

    private var escapeCount: Int {
        executor.foreignEnqueueCount + executor.foreignEmissionCount + (asyncClock?.foreignAccessCount ?? 0)
    }
}

extension TestTaskExecutor {
    func noteForeignEmission() { foreignEmissionLock.withLock { foreignEmissions += 1 } }
    var foreignEmissionCount: Int { foreignEmissionLock.withLock { foreignEmissions } }
}
