import Foundation
import MarbleCore
import MarblesTesting
import Testing

@testable import Marbles
@testable import MarblesRuntime

/// Holds the jobs of tasks that prefer it instead of running them, so a test can hand a job to
/// the runtime's delay and deadline entry points itself.
@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
final class JobCatcher: TaskExecutor, @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    /// Where jobs go once the catcher has caught what it needs: a task started on another
    /// executor hops back to the one it prefers.
    var forward: (any TaskExecutor)?
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let forward { return forward.enqueue(job) }
        lock.withLock { jobs.append(job) }
    }
    func take() -> UnownedJob? { lock.withLock { jobs.isEmpty ? nil : jobs.removeFirst() } }
}

@Suite("The runtime's delay and deadline hooks", .serialized, .noPortabilityWarning)
struct RuntimeHookTests {
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("all five hooks are installed")
    func installed() {
        #expect(RuntimeHooks.installed == 0b11111)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("a job enqueued with a delay or a deadline on the driving thread runs at that virtual time")
    func delayAndDeadline() throws {
        let scheduler = TestScheduler()
        let catcher = JobCatcher()
        let results = PublishSubject<String>()
        Task(executorPreference: catcher) { results.onNext("d") }
        Task(executorPreference: catcher) { results.onNext("c") }
        Task(executorPreference: catcher) { results.onNext("s") }
        let delayed = try #require(catcher.take())
        let continuous = try #require(catcher.take())
        let suspending = try #require(catcher.take())
        catcher.forward = scheduler.executor
        scheduler.run {
            scheduler.expect(results).toBe("---d-c--s")
            // From a task, as the runtime's sleeps are: the deadline's slack is the job's running time.
            Task {
                RuntimeHooks.enqueueGlobal(delayed, afterNanoseconds: 3_000_000)
                RuntimeHooks.enqueueGlobal(continuous, deadlineAfterNanoseconds: 5_000_000, clock: .continuous)
                RuntimeHooks.enqueueGlobal(suspending, deadlineAfterNanoseconds: 8_000_000, clock: .suspending)
            }
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test("off a driving thread the hooks pass the job on to the hook installed before them, then the runtime")
    func chained() async throws {
        let catcher = JobCatcher()
        let woke = AsyncStream<Void>.makeStream()
        Task(executorPreference: catcher) { woke.continuation.yield() }
        let job = try #require(catcher.take())
        RuntimeHooks.simulatePreviousDelayHook(true)
        defer { RuntimeHooks.simulatePreviousDelayHook(false) }
        let before = RuntimeHooks.previousDelayHookCalls
        RuntimeHooks.enqueueGlobal(job, afterNanoseconds: 1_000_000)
        #expect(RuntimeHooks.previousDelayHookCalls == before + 1)
        // The runtime ran it on the global pool, in real time.
        var iterator = woke.stream.makeAsyncIterator()
        await iterator.next()
    }
}
