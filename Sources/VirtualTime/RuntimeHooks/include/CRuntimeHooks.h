#ifndef MARBLES_CRUNTIMEHOOKS_H
#define MARBLES_CRUNTIMEHOOKS_H

// The Swift runtime's hooks, routed by thread to the test scheduler that drives it. The libc
// interposer (clock_gettime, dispatch_after_f) is a target of its own, CClockInterposer, linked
// only into test executables; it reads the route's clocks through `marbles_route_clocks`.

#include <stdbool.h>
#include <stdint.h>

/// The clock a sleep or a reading is on, as the Swift runtime numbers them.
typedef enum marbles_clock_kind {
    marbles_clock_continuous = 1,
    marbles_clock_suspending = 2,
} marbles_clock_kind;

/// Receives a job enqueued on a thread that is driving a test scheduler.
typedef void (*marbles_capture_fn)(void *_Nonnull driver, void *_Nonnull job);

/// Receives a job the runtime was asked to run after a delay (`is_deadline` false: `remaining_ns`
/// is exact) or at a deadline (`remaining_ns` is the deadline minus the clock's time when the
/// hook ran), on a thread that is driving a test scheduler.
typedef void (*marbles_capture_delayed_fn)(
    void *_Nonnull driver, void *_Nonnull job, long long remaining_ns, bool is_deadline, marbles_clock_kind clock);

/// Told that a driving thread that is not the main thread enqueued a main-actor job (which then
/// takes the usual path to the main queue).
typedef void (*marbles_main_escape_fn)(void *_Nonnull driver);

/// A serial executor reference as the runtime passes it: the object and its witness table.
typedef struct {
    void *_Nullable identity;
    void *_Nullable witness;
} marbles_executor_ref;

/// Makes the driver's stand-in for `MainActor`'s executor (asked once per route, the first time
/// the runtime asks for the main executor on the driving thread).
typedef marbles_executor_ref (*marbles_main_standin_fn)(void *_Nonnull driver);

/// The callbacks the hooks route to.
typedef struct {
    marbles_capture_fn _Nonnull global;
    marbles_capture_fn _Nonnull main;
    marbles_capture_delayed_fn _Nonnull delayed;
    marbles_main_escape_fn _Nonnull main_escape;
    marbles_main_standin_fn _Nonnull main_standin;
} marbles_runtime_callbacks;

/// Installs the Swift runtime's hooks once per process (global enqueue, main-executor enqueue,
/// get-main-executor, enqueue with a delay and with a deadline), each chained to the hook that
/// was there before. Returns false when the runtime does not export `swift_task_enqueueGlobal_hook`.
bool marbles_runtime_hooks_install(marbles_runtime_callbacks callbacks);

/// Which hooks are installed, as bits: 1 global, 2 main enqueue, 4 delay, 8 deadline, 16 get main executor.
int marbles_runtime_hooks_installed(void);

/// The virtual clocks of one test scheduler, as the `clock_gettime` interposer reads them on the
/// thread that drives it (Linux): a clock's virtual reading is its base plus `now_ns(context)`.
/// The bases are taken at the first virtual reading (`bases_set`), so a run that never reads a
/// clock pays nothing: each clock reads its real time then (or `start_date_ns` for the date, when
/// `has_start_date`) at virtual time `origin_ns`, when the scheduler first drove.
typedef struct marbles_virtual_clocks {
    bool bases_set;
    bool has_start_date;
    long long start_date_ns;
    long long origin_ns;
    /// `Date()`: CLOCK_REALTIME at virtual time zero.
    long long realtime_base_ns;
    /// `SuspendingClock`: CLOCK_MONOTONIC at virtual time zero.
    long long monotonic_base_ns;
    /// `ContinuousClock`: CLOCK_BOOTTIME at virtual time zero.
    long long boottime_base_ns;
    /// The scheduler's virtual time, in nanoseconds.
    long long (*_Nonnull now_ns)(void *_Nonnull context);
    void *_Nonnull context;
    /// Virtual readings answered so far (touched only by the driving thread).
    unsigned long long reads;
    /// The same by clock: CLOCK_REALTIME (`Date()`), CLOCK_MONOTONIC (`SuspendingClock`),
    /// CLOCK_BOOTTIME (`ContinuousClock`), for the portability note.
    unsigned long long realtime_reads;
    unsigned long long monotonic_reads;
    unsigned long long boottime_reads;
    /// Receives a sleeper the default executor handed to Dispatch on the driving thread (a task
    /// with no executor preference, on a default actor): `remaining_ns` is its deadline minus
    /// virtual now.
    void (*_Nullable sleep)(void *_Nonnull owner, void *_Nonnull job, long long remaining_ns, marbles_clock_kind clock);
    void *_Nullable owner;
} marbles_virtual_clocks;

/// Where the calling thread's work goes, all of it set by one call:
/// - `driver` gets the thread's jobs (NULL: the runtime, as usual);
/// - `MainActor`'s executor is `main_identity`/`main_witness` (NULL with a driver: the driver's
///   stand-in, made by the `main_standin` callback when first asked for);
/// - `clocks` answers the thread's clock reads when the interposer is linked (NULL: real).
typedef struct {
    void *_Nullable driver;
    void *_Nullable main_identity;
    void *_Nullable main_witness;
    marbles_virtual_clocks *_Nullable clocks;
} marbles_route;

/// Sets the calling thread's route; returns the one set before, to restore it.
marbles_route marbles_route_set(marbles_route route);

/// The calling thread's virtual clocks (the interposer's one read of the route).
marbles_virtual_clocks *_Nullable marbles_route_clocks(void);

/// Called once by the interposer's constructor: clock reads of this process can be virtual.
/// `next_name` tells what its `clock_gettime` chains to (for tests).
void marbles_clock_interposer_register(const char *_Nonnull (*_Nonnull next_name)(void));
/// Whether the interposer registered (it is linked into this executable: MarblesTesting links it).
bool marbles_clock_interposer_registered(void);
/// What the interposer's `clock_gettime` chains to: a symbol name or a library path ("" when
/// it is not linked).
const char *_Nonnull marbles_clock_interposer_next_name(void);

/// Enqueues `job` on the real main executor (not a driver's stand-in).
void marbles_enqueue_on_real_main(void *_Nonnull job);

/// Whether the calling thread is the process's main thread.
bool marbles_is_main_thread(void);

/// Calls the runtime's `swift_task_enqueueGlobalWithDelay` / `WithDeadline` entry points (for
/// tests of the hooks: Swift 6.3's `Task.sleep` goes through the task executor instead).
void marbles_enqueue_global_with_delay(unsigned long long delay_ns, void *_Nonnull job);
void marbles_enqueue_global_with_deadline_after(long long delay_ns, marbles_clock_kind clock, void *_Nonnull job);

/// Tests only: swaps in a hook as if another library had installed it before ours, returning
/// the one it replaces; `marbles_test_previous_hook_calls` counts calls that reached it.
void marbles_test_set_previous_delay_hook(bool on);
int marbles_test_previous_hook_calls(void);

#endif
