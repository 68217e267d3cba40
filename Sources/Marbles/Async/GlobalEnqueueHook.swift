internal import CConcurrencyHooks

/// Routes the work that code under test starts onto the test scheduler's executor, through the
/// Swift runtime's hooks: unstructured tasks (`Task { }`, `Task.detached`, the internal tasks of
/// swift-async-algorithms' `debounce` or `merge`) through the global-enqueue hook; main-actor
/// work through the get-main-executor hook, which answers with the executor's
/// ``MainActorStandIn`` (Swift 6.3 never calls the enqueue-main hook, which stays installed for
/// older runtimes); sleeps that reach the runtime as a delay or a deadline through those two
/// hooks (older runtimes; 6.3's `Task.sleep` reaches the executor as a `SchedulingExecutor`).
///
/// The hooks are installed once per process, each chained to the hook installed before it, and
/// route by thread: work started on a thread that is currently driving a test scheduler
/// (running its `run { }` body, or its flush) goes to that scheduler; everything else takes the
/// usual path. Tests running in parallel on other threads are untouched, and a job never changes
/// owner while it waits: whoever enqueued it on the driver thread was the test's own code.
/// Main-actor jobs run in the scheduler's loop only when the driving thread is on the main actor
/// (a `@MainActor` test); otherwise they go to the real main queue and the test fails, saying so.
enum GlobalEnqueueHook {
    /// Whether the runtime exports the global-enqueue hook (it does on Linux and Apple
    /// platforms); without it unstructured tasks escape to the global pool and the scheduler
    /// reports them.
    static let isAvailable: Bool = marbles_enqueue_hook_install(
        marbles_hook_callbacks(
            global: captureJob, main: captureMainJob, delayed: captureSleep, main_escape: noteMainEscape, main_standin: makeMainStandIn))

    /// Runs `body` with jobs enqueued on this thread routed to `executor`, and `MainActor`'s
    /// executor on this thread being `executor`'s main-actor stand-in (made when the runtime
    /// first asks for it).
    static func routing<T>(to executor: TestTaskExecutor, _ body: () throws -> T) rethrows -> T {
        guard isAvailable else { return try body() }
        executor.drivesOnMainActor = MainActorStandIn.isOnMainActor
        let previous = marbles_enqueue_hook_set_route(
            marbles_route(driver: Unmanaged.passUnretained(executor).toOpaque(), main_identity: nil, main_witness: nil))
        defer { marbles_enqueue_hook_set_route(previous) }
        return try body()
    }
}

private func executor(_ driver: UnsafeMutableRawPointer) -> TestTaskExecutor {
    Unmanaged<TestTaskExecutor>.fromOpaque(driver).takeUnretainedValue()
}

/// The global hook's callback: the job belongs to the executor whose scheduler drives this thread.
private let captureJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    executor(driver).enqueueRouted(unsafeBitCast(job, to: UnownedJob.self))
}

/// The main-executor hook's callback (the driving thread is the main thread).
private let captureMainJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    executor(driver).enqueueMainActor(unsafeBitCast(job, to: UnownedJob.self))
}

/// The get-main-executor hook's callback: the driver's main-actor stand-in (on the driving thread).
private let makeMainStandIn: @convention(c) (UnsafeMutableRawPointer) -> marbles_executor_ref = { driver in
    let standIn = unsafeBitCast(
        executor(driver).mainActor.asUnownedSerialExecutor(), to: (UnsafeMutableRawPointer, UnsafeMutableRawPointer).self)
    return marbles_executor_ref(identity: standIn.0, witness: standIn.1)
}

/// The delay and deadline hooks' callback.
private let captureSleep: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, Int64, Bool, Int32) -> Void = {
    driver, job, remaining, isDeadline, _ in
    executor(driver).enqueueSleep(unsafeBitCast(job, to: UnownedJob.self), remaining: .nanoseconds(remaining), isDeadline: isDeadline)
}

/// A main-actor job enqueued while a thread other than the main thread drives the scheduler.
private let noteMainEscape: @convention(c) (UnsafeMutableRawPointer) -> Void = { driver in
    executor(driver).mainActorEscapes.wrappingIncrement(by: 1, ordering: .relaxed)
}

/// The runtime hooks seen from tests: which are installed, and the runtime's delay and deadline
/// entry points (Swift 6.3's `Task.sleep` reaches them only when no scheduling executor is
/// current, so tests call them directly).
package enum RuntimeHooks {
    /// Bits: 1 global enqueue, 2 main enqueue, 4 delay, 8 deadline, 16 get main executor.
    package static var installed: Int {
        _ = GlobalEnqueueHook.isAvailable
        return Int(marbles_enqueue_hooks_installed())
    }

    package static func enqueueGlobal(_ job: UnownedJob, afterNanoseconds delay: UInt64) {
        marbles_enqueue_global_with_delay(delay, unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    }

    /// `clock`: the runtime's clock id (1 continuous, 2 suspending).
    package static func enqueueGlobal(_ job: UnownedJob, deadlineAfterNanoseconds delay: Int64, clock: Int32) {
        marbles_enqueue_global_with_deadline_after(delay, clock, unsafeBitCast(job, to: UnsafeMutableRawPointer.self))
    }

    /// What the interposed `clock_gettime` calls for every read it does not answer: the symbol
    /// name, or the library's path.
    package static var clockGettimeNext: String {
        _ = VirtualClocks.isAvailable
        return String(cString: marbles_clock_gettime_next())
    }

    /// Puts a counting hook where another library's delay hook would be, before ours in the chain.
    package static func simulatePreviousDelayHook(_ on: Bool) { marbles_test_set_previous_delay_hook(on) }
    package static var previousDelayHookCalls: Int { Int(marbles_test_previous_hook_calls()) }
}
