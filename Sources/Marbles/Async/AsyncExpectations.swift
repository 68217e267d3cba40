import MarblesRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TestScheduler {
    /// Where a structured async operator under test sends its values; see
    /// ``TestScheduler/expect(emitting:unsubscribe:fileID:filePath:line:column:_:)``.
    ///
    /// Call it from the test's own tasks (the body, its task-group children, `async let`); a call
    /// from another thread is dropped and fails the test as escaped work.
    public struct AsyncEmitter<Element>: @unchecked Sendable {
        @usableFromInline let emit: (Element) -> Void

        @inlinable init(emit: @escaping (Element) -> Void) { self.emit = emit }

        /// Records `element` at the current virtual time.
        public func callAsFunction(_ element: Element) { emit(element) }

        /// Records `element` at the current virtual time.
        public func yield(_ element: Element) { emit(element) }
    }
}

/// What an async expectation's task does: run the work, record what it produces.
///
/// Inlinable with the `expect` overloads that make it: specialized where the test is, its
/// recording appends typed events without generic metadata lookups.
@usableFromInline
struct AsyncWork<Element> {
    @usableFromInline let expectation: MarbleExpectation<Element>
    @usableFromInline let run: AsyncRun
    @usableFromInline let work: (_ record: @escaping (Event<Element>) -> Void) async throws -> Void

    @inlinable
    init(
        expectation: MarbleExpectation<Element>, run: AsyncRun,
        work: @escaping (_ record: @escaping (Event<Element>) -> Void) async throws -> Void
    ) {
        self.expectation = expectation
        self.run = run
        self.work = work
    }

    @inlinable
    func perform() async {
        let record = { (event: Event<Element>) in
            // A task that outlived its test (a continuation resumed after the scheduler went)
            // runs elsewhere: the scheduler is gone, nothing is recorded.
            guard !run.schedulerGone else { return }
            // After the cancel, what the sequence does at that same instant (values a cancelled
            // sleep let through, its end) still counts; nothing later does.
            guard !run.cancelled || run.cancelledAt == expectation.scheduler.now else { return }
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
@usableFromInline
final class AsyncRun {
    let location: MarbleFailure.Location
    /// The scheduler's executor (the task keeps it; it says whether the scheduler went).
    private let executor: TestTaskExecutor
    /// Whether the scheduler went: a task that outlived its test (a continuation resumed after
    /// the run) runs elsewhere, and records and reports nothing.
    @usableFromInline var schedulerGone: Bool { executor.isDetached }
    /// Where the task is: made, started, finished, cancelled (and when).
    @usableFromInline struct Progress {
        var task: Task<Void, Never>?
        @usableFromInline var finished = false
        @usableFromInline var cancelled = false
        @usableFromInline var cancelledAt: Duration?
        var started = false
    }
    // The scheduler's thread's (the task runs on its executor; once the scheduler went, on the
    // task's thread alone), read by every element recorded and by each drive's end, never in
    // overlapping accesses.
    // measured: see ColdObservable.subscriptionLogs (checked together, 1.02–1.05× on small and
    // async tests; its part: 0.8% of an async marble test's samples).
    @exclusivity(unchecked) @usableFromInline var progress = Progress()
    var task: Task<Void, Never>? {
        get { progress.task }
        set { progress.task = newValue }
    }
    @inlinable var finished: Bool {
        get { progress.finished }
        set { progress.finished = newValue }
    }
    @inlinable var cancelled: Bool {
        get { progress.cancelled }
        set { progress.cancelled = newValue }
    }
    /// The virtual time of the unsubscription's `!`, once it cancelled the task.
    @inlinable var cancelledAt: Duration? {
        get { progress.cancelledAt }
        set { progress.cancelledAt = newValue }
    }
    var started: Bool {
        get { progress.started }
        set { progress.started = newValue }
    }
    init(location: MarbleFailure.Location, executor: TestTaskExecutor) {
        self.location = location
        self.executor = executor
    }
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
    // Inlinable: the loop below is specialized where the test calls it, so the sequence's
    // iterators (`values`, the operators on it) run specialized, not through generic metadata
    // lookups on every element (about 12% of a short async test, measured).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @inlinable
    public func expect<S: AsyncSequence>(
        _ sequence: S, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> MarbleExpectation<S.Element> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        let box = UncheckedSendable(sequence)
        // Unowned, not weak: the task's jobs run while this scheduler drives, or late, elsewhere,
        // after it went (then `report` is not reached: `schedulerGone`), and a weak
        // reference would give the scheduler a side table, which puts every retain and release
        // of it on the runtime's slow path for the rest of the test (5% of a short async test).
        let gone = schedulerGoneCheck()
        return startAsync(unsubscribe: unsubscribe, location: location) { [unowned self] record in
            var iterator = box.value.makeAsyncIterator()
            while let element = try await iterator.next() { record(.next(element)) }
            // The iterator contract: once `next()` returned nil it keeps returning nil. Asked once
            // more (as swift-async-algorithms' validation harness does), a broken sequence shows.
            do {
                if let extra = try await iterator.next(), !gone() {
                    report("the sequence produced \(extra) past its end (next() returned nil, then a value)", at: location)
                }
            } catch {
                if !Task.isCancelled, !gone() {
                    report("the sequence threw \(error) past its end (next() returned nil, then threw)", at: location)
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
    // Inlinable, as `expect(_:)` of a sequence: specialized where the test is, the expectation,
    // its task's work and its recording look no generic metadata up.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @inlinable
    public func expect<Element>(
        emitting: Element.Type = Element.self, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column,
        _ body: @escaping (TestScheduler.AsyncEmitter<Element>) async throws -> Void
    ) -> MarbleExpectation<Element> {
        let location = MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        let box = UncheckedSendable(body)
        let fromDrivingThread = emissionCheck()
        return startAsync(unsubscribe: unsubscribe, location: location) { record in
            try await box.value(
                TestScheduler.AsyncEmitter { element in
                    guard fromDrivingThread() else { return }
                    record(.next(element))
                })
        }
    }

    /// Whether an emission comes from the scheduler's thread; one from another thread is
    /// counted (the test then reports racy work) and dropped.
    @usableFromInline
    func emissionCheck() -> @Sendable () -> Bool {
        let executor = executor
        return {
            guard executor.isOwnerThread else {
                executor.noteForeignEmission()
                return false
            }
            return true
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @inlinable
    func startAsync<Element>(
        unsubscribe: String?, location: MarbleFailure.Location,
        _ work: @escaping (_ record: @escaping (Event<Element>) -> Void) async throws -> Void
    ) -> MarbleExpectation<Element> {
        let expectation = MarbleExpectation<Element>(scheduler: self, origin: now, window: unsubscribe)
        let run = makeAsyncRun(location: location)
        let state = UncheckedSendable(AsyncWork(expectation: expectation, run: run, work: work))
        startTask(run, unsubscribe: unsubscribe, location: location) { await state.value.perform() }
        return expectation
    }

    @usableFromInline
    func makeAsyncRun(location: MarbleFailure.Location) -> AsyncRun { AsyncRun(location: location, executor: executor) }

    /// Whether this scheduler went, asked from a task that may outlive it (the scheduler is not
    /// touched: the executor, which the task keeps, knows).
    @usableFromInline
    func schedulerGoneCheck() -> @Sendable () -> Bool {
        let executor = executor
        return { executor.isDetached }
    }

    /// Starts `run`'s task at the subscription diagram's `^` and cancels it at its `!`.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @usableFromInline
    func startTask(
        _ run: AsyncRun, unsubscribe: String?, location: MarbleFailure.Location,
        _ operation: @escaping @Sendable () async -> Void
    ) {
        let (subscribeAt, unsubscribeAt) = subscriptionTimes(unsubscribe, location: location)
        state.asyncRuns.append(run)
        watchAwaitedTasks()
        virtual.schedule(at: now + subscribeAt) { [executor] in
            guard !run.cancelled else { return }
            run.started = true
            run.task = Task(executorPreference: executor, operation: operation)
        }
        if let unsubscribeAt {
            // At the `!` instant, as swift-async-algorithms' validation harness: the inputs due
            // then deliver first (the consumer sees them), then the consumer is cancelled, before
            // any sleeper due then wakes (the runtime holds those wake-ups back until the cancel:
            // a sleep the cancel ends does not also tick), and what the sequence does in
            // response at that instant (its end, a value a cancelled sleep lets through) is
            // still recorded.
            let cancelAt = now + unsubscribeAt
            runtime.holdWakes(at: cancelAt)
            virtual.schedule(at: cancelAt) { [virtual, runtime] in
                virtual.schedule(at: virtual.now) {
                    run.cancelled = true
                    run.cancelledAt = virtual.now
                    run.task?.cancel()
                    runtime.releaseHeldWakes(at: virtual.now)
                }
            }
        }
    }
}
