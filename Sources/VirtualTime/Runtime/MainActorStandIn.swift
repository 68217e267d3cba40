internal import CRuntimeHooks
import Dispatch

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
package final class MainActorStandIn: SerialExecutor, @unchecked Sendable {
    private unowned let executor: TestTaskExecutor

    init(executor: TestTaskExecutor) { self.executor = executor }

    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
    package func enqueue(_ job: consuming ExecutorJob) { enqueue(UnownedJob(job)) }

    // What the runtime calls before `ExecutorJob` (macOS 14 / iOS 17).
    package func enqueue(_ unowned: UnownedJob) {
        if executor.drivesOnMainActor {
            executor.enqueueMainActor(unowned)
        } else {
            executor.noteMainActorEscape()
            marbles_enqueue_on_real_main(unsafeBitCast(unowned, to: UnsafeMutableRawPointer.self))
        }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the caller is where main-actor work runs while the scheduler drives.
    private var isIsolating: Bool { executor.drivesOnMainActor && executor.isOwnerThread }

    package func checkIsolated() {
        precondition(
            isIsolating,
            "Incorrect actor executor assumption: expected the main actor (on the test scheduler's thread, in a test that runs on the main actor)"
        )
    }

    package func isIsolatingCurrentContext() -> Bool? { isIsolating }

    /// Whether the caller runs on the main actor: on the main thread, or inside the main queue
    /// (where Swift Testing runs `@MainActor` tests on Linux, on a thread that drains it).
    static var isOnMainActor: Bool {
        _ = markMainQueue
        return marbles_is_main_thread() || DispatchQueue.getSpecific(key: mainQueueKey) != nil
    }

    private static let mainQueueKey = DispatchSpecificKey<Bool>()
    private static let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
}
