import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The task executor a ``TestScheduler`` runs async work on: a FIFO of jobs that only the
/// scheduler's thread runs, one at a time, between virtual-time steps.
///
/// Jobs arriving from another thread are still queued (they belong to our tasks), but counted:
/// they mean some work ran outside the scheduler (a `DispatchQueue`, `MainActor`, a system-clock
/// sleep), which makes timing racy, and the scheduler fails the test when it sees any.
/// Unstructured tasks started on the driving thread arrive through `GlobalEnqueueHook` and are
/// not foreign.
final class TestTaskExecutor: TaskExecutor, @unchecked Sendable {
    // `jobs`, `foreignEnqueues` and `owner` are guarded by `lock`.
    private let lock = Lock()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var foreignEnqueues = 0
    private var owner: pthread_t
    // Jobs waiting: lets the scheduler's loop skip the lock between steps when there are none.
    private let waiting = Atomic<Int>(0)
    // Emissions through an `AsyncEmitter` from other threads.
    let foreignEmissionLock = Lock()
    var foreignEmissions = 0

    init() { owner = pthread_self() }

    /// Makes the calling thread the one that runs jobs.
    func adoptCurrentThread() { lock.withLock { owner = pthread_self() } }

    /// Whether the caller is the thread that runs jobs.
    var isOwnerThread: Bool { lock.withLock { pthread_equal(owner, pthread_self()) != 0 } }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        lock.withLock {
            if pthread_equal(owner, pthread_self()) == 0 { foreignEnqueues += 1 }
            jobs.append(unowned)
            waiting.add(1, ordering: .releasing)
        }
    }

    /// Queues a job the global-enqueue hook routed here (a `Task { }` started on the driver thread).
    func enqueueRouted(_ job: UnownedJob) {
        lock.withLock {
            jobs.append(job)
            waiting.add(1, ordering: .releasing)
        }
    }

    /// Jobs enqueued from other threads so far.
    var foreignEnqueueCount: Int { lock.withLock { foreignEnqueues } }

    /// Runs queued jobs, including those they enqueue, until none is left or `limit` ran.
    /// - Returns: how many ran.
    func runUntilIdle(limit: Int) -> Int {
        var ran = 0
        while ran < limit, waiting.load(ordering: .acquiring) > 0, let job = next() {
            job.runSynchronously(on: asUnownedTaskExecutor())
            ran += 1
        }
        return ran
    }

    private func next() -> UnownedJob? {
        lock.withLock {
            guard head < jobs.count else {
                if head > 0 {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                }
                return nil
            }
            defer { head += 1 }
            waiting.subtract(1, ordering: .relaxed)
            return jobs[head]
        }
    }
}
