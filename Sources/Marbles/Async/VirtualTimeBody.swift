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
        runtime.mainActorInLoop = true
        watchAwaitedTasks()
        let scheduler = DrivingThreadOnly(value: self)
        let outcome = BodyOutcome<Value>()
        let task = run(at: location) {
            let task = startBody {
                // Known by the hash of its `UnsafeCurrentTask`, as the runtime sees it at a sleep.
                withUnsafeCurrentTask { scheduler.value.runtime.bodyTask = $0?.hashValue }
                do {
                    let value = try await Self.$currentBox.withValue(scheduler) { try await body(scheduler.value) }
                    outcome.result = .success(value)
                } catch {
                    outcome.result = .failure(error)
                }
                scheduler.value.runtime.bodyTask = nil
            }
            return task
        }
        runtime.bodyTask = nil
        if let result = outcome.result { return .finished(result) }
        let stoppedAt = frameText(now, frame: frame)
        task.cancel()
        runtime.settle()
        runtime.detach()
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

    /// Starts the body's task on this scheduler's executor (as its preference where the OS has
    /// task executors, so that the task's jobs come back to it from any thread).
    private func startBody(_ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            return Task(executorPreference: executor, operation: body)
        }
        return Task(operation: body)
    }

    /// Lets everything due at the current instant run, without moving virtual time, then
    /// returns: the jobs that are ready and those they make ready, timers due now, and work
    /// handed to other threads (Go's `synctest.Wait`, Kotlin's `runCurrent`). Call it from a test
    /// body on virtual time (`withVirtualTime`, the `.virtualTime` trait); elsewhere it returns
    /// at once.
    public static func runCurrent() async {
        guard let runtime = currentBox?.value.runtime, runtime.executor.isOwnerThread else { return }
        let driving = DrivingThreadOnly(value: runtime)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            driving.value.whenIdle { done.resume() }
        }
    }
}
