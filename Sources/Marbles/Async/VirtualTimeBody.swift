import MarbleCore
import MarblesRuntime

/// What crosses into the body's task: a value used only on the thread that drives the scheduler
/// (the body and everything it starts run there).
private struct DrivingThreadOnly<Value>: @unchecked Sendable {
    let value: Value
}

/// The body's outcome, written by its task and read after the run, both on the driving thread.
private final class BodyOutcome<Value>: @unchecked Sendable {
    var result: Result<Value, any Error>?
}

/// Why a test body on virtual time gave no result: it had not returned when nothing was left to
/// run, or when the step limit stopped the run.
public struct VirtualTimeBodyError: Error, CustomStringConvertible {
    /// What happened, and what to do.
    public let description: String
}

extension TestScheduler {
    /// The scheduler whose virtual time the current task runs on: set inside `withVirtualTime`
    /// and in a test with the `.virtualTime` trait (MarblesTesting), `nil` elsewhere.
    public static var current: TestScheduler? { currentBox?.value }

    @TaskLocal fileprivate static var currentBox: DrivingThreadOnly<TestScheduler>?

    /// How a body run on virtual time ended.
    package enum BodyEnd<Value> {
        /// It returned or threw.
        case finished(Result<Value, any Error>)
        /// It had not returned when the run ended; it was cancelled, and `task` is what is left
        /// of it (its jobs now take their usual paths, so that it can still end on real time).
        case unfinished(VirtualTimeBodyError, task: Task<Void, Never>)
    }

    /// Runs `body` as a task on this scheduler's executor, on virtual time, and drives it until
    /// it returns and nothing is left to run: time moves only when nothing is ready. Then the
    /// end of a run's checks (expectations, leaks, async leftovers) as for ``run(fileID:filePath:line:column:_:)``.
    ///
    /// Main-actor work runs in the loop, on the thread that drives, whether or not the caller is
    /// on the main actor. The calling thread drives until the body is done.
    package func runBody<Value: Sendable>(
        at location: MarbleFailure.Location, _ body: @escaping @Sendable (TestScheduler) async throws -> Value
    ) -> BodyEnd<Value> {
        let outcome = BodyOutcome<Value>()
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            return driveBody(at: location, bodyTask(body, outcome), outcome)
        }
        return driveBody(at: location, nil, outcome) { startBody(body, outcome) }
    }

    /// ``runBody(at:_:)`` with the driving on a thread of its own: the caller's thread (a thread
    /// of Swift's cooperative pool, as a rule) is free meanwhile, so tests beside this one, and
    /// jobs the runtime must run on the pool, go on as if it were not there. The body's task is
    /// made here, so it inherits the caller's task-local values (the test framework's: which test
    /// an issue belongs to). On the main thread, and where tasks cannot prefer an executor, the
    /// caller drives, as ``runBody(at:_:)`` does.
    package func runBodyOnItsOwnThread<Value: Sendable>(
        at location: MarbleFailure.Location, _ body: @escaping @Sendable (TestScheduler) async throws -> Value
    ) async -> BodyEnd<Value> {
        guard #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *), !MainActorStandIn.isOnMainActor else {
            return runBody(at: location, body)
        }
        let outcome = BodyOutcome<Value>()
        // Made on the thread that made the scheduler (its executor's owner until the driving
        // thread adopts it): the task's first job waits in the executor's queue.
        let task = bodyTask(body, outcome)
        let handOff = DrivingThreadOnly(value: (self, task, outcome))
        let end = await withCheckedContinuation { (done: CheckedContinuation<DrivingThreadOnly<BodyEnd<Value>>, Never>) in
            DrivingThread.start {
                let (scheduler, task, outcome) = handOff.value
                done.resume(returning: DrivingThreadOnly(value: scheduler.driveBody(at: location, task, outcome)))
            }
        }
        return end.value
    }

    /// The body's task, on this scheduler's executor (its preference, so that its jobs come back
    /// to it from any thread), with the scheduler as `TestScheduler.current`.
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    private func bodyTask<Value: Sendable>(
        _ body: @escaping @Sendable (TestScheduler) async throws -> Value, _ outcome: BodyOutcome<Value>
    ) -> Task<Void, Never> {
        Task(executorPreference: executor, operation: bodyOperation(body, outcome))
    }

    private func bodyOperation<Value: Sendable>(
        _ body: @escaping @Sendable (TestScheduler) async throws -> Value, _ outcome: BodyOutcome<Value>
    ) -> @Sendable () async -> Void {
        let scheduler = DrivingThreadOnly(value: self)
        return {
            // Known by the hash of its `UnsafeCurrentTask`, as the runtime sees it at a sleep.
            withUnsafeCurrentTask { scheduler.value.runtime.bodyTask = $0?.hashValue }
            do {
                let value = try await Self.$currentBox.withValue(scheduler) { try await body(scheduler.value) }
                outcome.result = .success(value)
            } catch {
                outcome.result = .failure(error)
            }
            scheduler.value.runtime.bodyTask = nil
            scheduler.value.runtime.clocks.bodyReturned = true
        }
    }

    /// Drives the body's task (`task`, or the one `start` makes inside the run) on the calling
    /// thread until it returns and nothing is left to run; a body that did not return is
    /// cancelled, and what is left of it goes to the usual executors.
    private func driveBody<Value: Sendable>(
        at location: MarbleFailure.Location, _ made: Task<Void, Never>?, _ outcome: BodyOutcome<Value>,
        start: () -> Task<Void, Never> = { preconditionFailure("a body task was made") }
    ) -> BodyEnd<Value> {
        runtime.mainActorInLoop = true
        state.runsBody = true
        watchAwaitedTasks()
        let task = run(at: location) { made ?? start() }
        runtime.bodyTask = nil
        if let result = outcome.result {
            // The run is over: nothing of it counts as alive any more (a loop's timer it set,
            // held waits), though its scheduler may still be read.
            runtime.clocks.detachTracker()
            return .finished(result)
        }
        let stoppedAt = frameText(now, frame: frame)
        task.cancel()
        runtime.settle()
        runtime.detach()
        if let maxFrames, runawayReason == nil, now >= frame * maxFrames {
            return .unfinished(
                VirtualTimeBodyError(
                    description:
                        "the test body had not returned at \(stoppedAt), where maxFrames (\(maxFrames)) ended the run; it was cancelled"),
                task: task)
        }
        if runawayReason != nil {
            return .unfinished(
                VirtualTimeBodyError(
                    description: "the test body had not returned at \(stoppedAt), when the step limit stopped the run "
                        + "(see that failure); it was cancelled"), task: task)
        }
        return .unfinished(
            VirtualTimeBodyError(
                description: """
                    the test body was still suspended at \(stoppedAt) when nothing was left to run on virtual time: no task \
                    was sleeping, no work handed to another thread was out, and no timer was due. It waits for something \
                    that will not come: a continuation nothing resumes, an async sequence that never ends, or work the \
                    test scheduler does not see (a Dispatch timer source scheduled off the test's thread, a Timer on a \
                    run loop, a thread that never answers). It was cancelled.
                    """), task: task)
    }

    /// Starts the body's task where tasks cannot prefer an executor: made inside the run, it
    /// reaches this scheduler's executor through the runtime's global-enqueue hook.
    private func startBody<Value: Sendable>(
        _ body: @escaping @Sendable (TestScheduler) async throws -> Value, _ outcome: BodyOutcome<Value>
    ) -> Task<Void, Never> {
        Task(operation: bodyOperation(body, outcome))
    }

    /// Why ``runCurrentIfDriving()`` ran nothing.
    package enum RunCurrentMisuse: Sendable {
        /// No test body on virtual time is running in this task.
        case outsideBody
        /// The body's scheduler is not driven by this thread (a detached task, another executor).
        case offTheDrivingThread
    }

    /// Lets everything due at the current instant run, without moving virtual time, then
    /// returns: the jobs that are ready and those they make ready, timers due now, and work
    /// handed to other threads (Go's `synctest.Wait`, Kotlin's `runCurrent`). MarblesTesting's
    /// `TestScheduler.runCurrent()` calls it and reports misuse; returns why nothing ran, if so.
    package static func runCurrentIfDriving() async -> RunCurrentMisuse? {
        guard let runtime = currentBox?.value.runtime else { return .outsideBody }
        guard runtime.executor.isOwnerThread else { return .offTheDrivingThread }
        let driving = DrivingThreadOnly(value: runtime)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            driving.value.whenIdle { done.resume() }
        }
        return nil
    }
}
