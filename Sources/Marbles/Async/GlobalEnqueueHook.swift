internal import CConcurrencyHooks

/// Routes unstructured tasks started by code under test (`Task { }`, `Task.detached`, the
/// internal tasks of swift-async-algorithms' `debounce` or `merge`) onto the test scheduler's
/// executor, through the Swift runtime's global-enqueue hook.
///
/// The hook is installed once per process and routes by thread: a job enqueued on a thread
/// that is currently driving a test scheduler (running its `run { }` body, or its flush) goes
/// to that scheduler's executor; every other job takes the usual path to the global executor.
/// Tests running in parallel on other threads are untouched, and a job never changes owner
/// while it waits: whoever enqueued it on the driver thread was the test's own code.
enum GlobalEnqueueHook {
    /// Whether the runtime exports the hook (it does on Linux and Apple platforms); without it
    /// unstructured tasks escape to the global pool and the scheduler reports them.
    static let isAvailable: Bool = marbles_enqueue_hook_install(captureJob)

    /// Runs `body` with jobs enqueued on this thread routed to `executor`.
    static func routing<T>(to executor: TestTaskExecutor, _ body: () throws -> T) rethrows -> T {
        guard isAvailable else { return try body() }
        let previous = marbles_enqueue_hook_set_driver(Unmanaged.passUnretained(executor).toOpaque())
        defer { marbles_enqueue_hook_set_driver(previous) }
        return try body()
    }
}

/// The hook's callback: the job belongs to the executor whose scheduler drives this thread.
private let captureJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    let executor = Unmanaged<TestTaskExecutor>.fromOpaque(driver).takeUnretainedValue()
    executor.enqueueRouted(unsafeBitCast(job, to: UnownedJob.self))
}
