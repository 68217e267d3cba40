internal import CRuntimeHooks
import Dispatch
import MarbleCore

/// `MainActor`'s executor as seen from a thread that drives a test scheduler.
///
/// The runtime asks for the main executor at every hop to the main actor and every isolation
/// check; the get-main-executor hook answers with this stand-in on driving threads. When the
/// test itself runs on the main actor (`@MainActor @Test`, an XCTest method on the main thread),
/// the stand-in queues main-actor jobs in the scheduler's FIFO, and the scheduler runs them on
/// that thread, nested in the test's own main-actor work, in virtual-time order; isolation
/// checks (`MainActor.assumeIsolated`, `@MainActor` closures called synchronously) pass there.
/// Otherwise jobs go to the real main queue and the scheduler fails the test, saying to mark it
/// `@MainActor`.
///
/// Lifetime: the stand-in is never freed. The runtime keeps references to a serial executor
/// without retaining it (a suspended main-actor task remembers the executor it hops back to), so
/// a task that outlives its test (a continuation resumed late by another thread, a hop back
/// from an actor) still enqueues on this object after the test's scheduler is gone. Freed, that
/// enqueue would run on reused memory: this was the heap corruption and the hang on a lock "no
/// live thread held" of issue 58. Instead the runtime detaches the stand-in when it goes: from
/// then on every job it gets goes to the real main executor. One stand-in (about a hundred bytes,
/// its lock included) per scheduler whose test used the main actor stays allocated for the life
/// of the process.
package final class MainActorStandIn: SerialExecutor, @unchecked Sendable {
    private let lock = Lock()
    /// The executor it hands jobs to, until detached (guarded by `lock`: whoever hands a job
    /// over holds it, so after ``detach()`` returns nothing reaches the executor).
    private var executor: TestTaskExecutor?

    init(executor: TestTaskExecutor) {
        self.executor = executor
        // Immortal (see above): one retain that is never released.
        _ = Unmanaged.passRetained(self)
    }

    /// The runtime is going: jobs go to the real main executor from now on.
    func detach() { lock.withLock { executor = nil } }

    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
    package func enqueue(_ job: consuming ExecutorJob) { enqueue(UnownedJob(job)) }

    // What the runtime calls before `ExecutorJob` (macOS 14 / iOS 17).
    package func enqueue(_ unowned: UnownedJob) {
        lock.lock()
        if let executor {
            executor.enqueueMainActor(unowned)
            lock.unlock()
        } else {
            lock.unlock()
            marbles_enqueue_past_hooks(jobPointer(unowned), true)
        }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the caller is where main-actor work runs while the scheduler drives: its thread,
    /// in a test on the main actor.
    private var isIsolating: Bool {
        lock.withLock { executor.map { $0.isOwnerThread && $0.drivesOnMainActor } ?? false }
    }

    package func checkIsolated() {
        precondition(
            isIsolating,
            "Incorrect actor executor assumption: expected the main actor (on the test scheduler's thread, in a test that runs on the main actor)"
        )
    }

    package func isIsolatingCurrentContext() -> Bool? { isIsolating }

    /// Whether the caller runs on the main actor: on the main thread, or inside the main queue
    /// (where Swift Testing runs `@MainActor` tests on Linux, on a thread that drains it).
    package static var isOnMainActor: Bool {
        _ = markMainQueue
        return marbles_is_main_thread() || DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    private static let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
}
