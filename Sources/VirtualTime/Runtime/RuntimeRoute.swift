internal import CRuntimeHooks
import MarbleCore

/// Routes what code under test starts on a driving thread to that thread's test scheduler,
/// through the Swift runtime's hooks (CRuntimeHooks): unstructured tasks (`Task { }`,
/// `Task.detached`, the internal tasks of swift-async-algorithms' `debounce` or `merge`) through
/// the global-enqueue hook; main-actor work through the get-main-executor hook, which answers
/// with the executor's ``MainActorStandIn`` (Swift 6.3 never calls the enqueue-main hook, which
/// stays installed for older runtimes); sleeps that reach the runtime as a delay or a deadline
/// through those two hooks (older runtimes; 6.3's `Task.sleep` reaches the executor as a
/// `SchedulingExecutor`). The same route carries the thread's virtual clocks, which the libc
/// interposer (CClockInterposer, in test executables) answers clock reads from.
///
/// The hooks are installed once per process, each chained to the hook installed before it, and
/// route by thread: work started on a thread that is currently driving a test scheduler
/// (running its `run { }` body, or its flush) goes to that scheduler; everything else takes the
/// usual path. Tests running in parallel on other threads are untouched, and a job never changes
/// owner while it waits: whoever enqueued it on the driver thread was the test's own code.
enum RuntimeRoute {
    /// Whether the runtime exports the global-enqueue hook (it does on Linux and Apple
    /// platforms); without it unstructured tasks escape to the global pool and the scheduler
    /// reports them.
    static let hooksInstalled: Bool = marbles_install(
        marbles_ops(
            global: captureJob, main: captureMainJob, delayed: captureSleep, main_escape: noteMainEscape, main_standin: makeMainStandIn,
            returned: captureReturnedJob, now_ns: schedulerNow, timer: dispatchTimer, sleep: dispatchSleep))

    /// Whether this thread is routed to `executor` with these clocks already: a run drives
    /// virtual time inside its own routing, which then need not be set again.
    static func isRouted(to executor: TestTaskExecutor, run: UnsafeMutablePointer<marbles_run>, virtualClocks: Bool) -> Bool {
        hooksInstalled && marbles_route_is(Unmanaged.passUnretained(executor).toOpaque(), run, virtualClocks)
    }

    /// Runs `body` with this thread routed to `executor` (its jobs, and `MainActor`'s executor
    /// being `executor`'s stand-in, made when the runtime first asks for it) in `run`, whose
    /// clocks answer its clock reads when `virtualClocks`. `mainActorInLoop`: main-actor work
    /// runs in the loop on this thread even when it is not the main thread (a test body on
    /// virtual time).
    static func routing<T>(
        to executor: TestTaskExecutor, run home: UnsafeMutablePointer<marbles_run>, virtualClocks: Bool, mainActorInLoop: Bool = false,
        _ body: () throws -> T
    ) rethrows -> T {
        let driver = hooksInstalled ? Unmanaged.passUnretained(executor).toOpaque() : nil
        let onMainActor = mainActorInLoop || MainActorStandIn.isOnMainActor
        executor.drivesOnMainActor = onMainActor
        if home.pointee.main_in_loop != onMainActor {
            home.pointee.main_in_loop = onMainActor
            if let tracker = home.pointee.members { marbles_members_set_main_in_loop(tracker, onMainActor) }
        }
        let previous = marbles_route_set(
            marbles_route(driver: driver, run: home, virtual_clocks: virtualClocks, standin: marbles_executor_ref()))
        defer { marbles_route_set(previous) }
        return try body()
    }
}

private func executor(_ driver: UnsafeMutableRawPointer) -> TestTaskExecutor {
    Unmanaged<TestTaskExecutor>.fromOpaque(driver).takeUnretainedValue()
}

/// A job pointer from C as the `UnownedJob` it is (a job reference is one pointer), and back.
func unownedJob(_ pointer: UnsafeMutableRawPointer) -> UnownedJob {
    unsafeBitCast(pointer, to: UnownedJob.self)
}

func jobPointer(_ job: UnownedJob) -> UnsafeMutableRawPointer {
    unsafeBitCast(job, to: UnsafeMutableRawPointer.self)
}

/// The global hook's callback: the job belongs to the executor whose scheduler drives this thread.
private let captureJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    executor(driver).enqueueRouted(unownedJob(job))
}

/// A job that tracked work on another thread enqueued for the global executor (called under the
/// tracker's lock, which keeps the executor attached meanwhile).
private let captureReturnedJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    executor(driver).enqueueReturned(unownedJob(job))
}

/// The main-executor hook's callback (the driving thread is the main thread).
private let captureMainJob: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void = { driver, job in
    executor(driver).enqueueMainActor(unownedJob(job))
}

/// The get-main-executor hook's callback: the driver's main-actor stand-in (on the driving thread).
private let makeMainStandIn: @convention(c) (UnsafeMutableRawPointer) -> marbles_executor_ref = { driver in
    // An executor reference is an object and its witness table, as the runtime passes it.
    typealias Pair = (UnsafeMutableRawPointer, UnsafeMutableRawPointer)
    precondition(MemoryLayout<UnownedSerialExecutor>.size == MemoryLayout<Pair>.size)
    let standIn = unsafeBitCast(executor(driver).mainActor.asUnownedSerialExecutor(), to: Pair.self)
    return marbles_executor_ref(identity: standIn.0, witness: standIn.1)
}

/// A run's virtual time, as its clocks read it on the driving thread.
private let schedulerNow: @convention(c) (UnsafeMutableRawPointer?) -> Int64 = { scheduler in
    guard let scheduler else { return 0 }
    return Unmanaged<VirtualTimeScheduler>.fromOpaque(scheduler)._withUnsafeGuaranteedRef { $0.nowNanoseconds }
}

/// A sleeper the default executor handed to Dispatch on the driving thread, with the time left
/// to its deadline on its clock.
private let dispatchSleep: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, Int64, marbles_clock_kind) -> Void = {
    owner, job, remaining, clock in
    Unmanaged<VirtualRuntime>.fromOpaque(owner)._withUnsafeGuaranteedRef {
        $0.clocks.noteDeadlineSleep(on: RuntimeClock(clock).type)
        $0.scheduleExactSleep(unownedJob(job), .nanoseconds(remaining), clock: RuntimeClock(clock).type)
    }
}

/// The delay and deadline hooks' callback.
private let captureSleep: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer, Int64, Bool, marbles_clock_kind) -> Void = {
    driver, job, remaining, isDeadline, _ in
    executor(driver).enqueueHookedSleep(unownedJob(job), remaining: .nanoseconds(remaining), isDeadline: isDeadline)
}

/// A main-actor job enqueued while a thread other than the main thread drives the scheduler.
private let noteMainEscape: @convention(c) (UnsafeMutableRawPointer) -> Void = { driver in
    executor(driver).noteMainActorEscape()
}

/// The runtime hooks seen from tests: which are installed, and the runtime's delay and deadline
/// entry points (Swift 6.3's `Task.sleep` reaches them only when no scheduling executor is
/// current, so tests call them directly).
package enum RuntimeHooks {
    /// Bits: 1 global enqueue, 2 main enqueue, 4 delay, 8 deadline, 16 get main executor.
    package static var installed: Int {
        _ = RuntimeRoute.hooksInstalled
        return Int(marbles_runtime_hooks_installed())
    }

    package static func enqueueGlobal(_ job: UnownedJob, afterNanoseconds delay: UInt64) {
        _enqueueGlobalWithDelay(delay, job)
    }

    package static func enqueueGlobal(_ job: UnownedJob, deadlineAfterNanoseconds delay: Int64, clock: RuntimeClock) {
        var seconds: Int64 = 0
        var nanoseconds: Int64 = 0
        _getTime(&seconds, &nanoseconds, CInt(clock.cValue.rawValue))
        let total = nanoseconds + delay
        _enqueueGlobalWithDeadline(seconds + total / 1_000_000_000, total % 1_000_000_000, 0, 0, CInt(clock.cValue.rawValue), job)
    }

    /// Whether the libc interposer is linked into this executable (test executables, through
    /// MarblesTesting) and registered itself.
    package static var clockInterposerLinked: Bool { marbles_clock_interposer_next_name() != nil }

    /// What the interposed `clock_gettime` calls for every read it does not answer: the symbol
    /// name, or the library's path ("" where the interposer is not linked).
    package static var clockGettimeNext: String { marbles_clock_interposer_next_name().map { String(cString: $0) } ?? "" }

    /// Puts a counting hook where another library's delay hook would be, before ours in the chain.
    package static func simulatePreviousDelayHook(_ on: Bool) { marbles_test_set_previous_delay_hook(on) }
    package static var previousDelayHookCalls: Int { Int(marbles_test_previous_hook_calls()) }
}

/// The system clock a sleep or a reading is on.
package enum RuntimeClock: Sendable {
    /// `ContinuousClock` (CLOCK_BOOTTIME on Linux).
    case continuous
    /// `SuspendingClock` (CLOCK_MONOTONIC on Linux).
    case suspending

    init(_ kind: marbles_clock_kind) { self = kind == marbles_clock_suspending ? .suspending : .continuous }

    var cValue: marbles_clock_kind { self == .suspending ? marbles_clock_suspending : marbles_clock_continuous }

    /// The clock's type, for messages.
    package var type: Any.Type { self == .suspending ? SuspendingClock.self : ContinuousClock.self }
}

// The runtime's entry points, declared as the standard library declares them (the delay and
// deadline hooks sit behind the first two; `swift_get_time` is what `ContinuousClock.now` reads).
@_silgen_name("swift_task_enqueueGlobalWithDelay")
private func _enqueueGlobalWithDelay(_ delay: UInt64, _ job: UnownedJob)

@_silgen_name("swift_task_enqueueGlobalWithDeadline")
private func _enqueueGlobalWithDeadline(
    _ seconds: Int64, _ nanoseconds: Int64, _ toleranceSeconds: Int64, _ toleranceNanoseconds: Int64, _ clock: CInt, _ job: UnownedJob)

@_silgen_name("swift_get_time")
private func _getTime(_ seconds: UnsafeMutablePointer<Int64>, _ nanoseconds: UnsafeMutablePointer<Int64>, _ clock: CInt)
