#ifndef MARBLES_CCONCURRENCYHOOKS_H
#define MARBLES_CCONCURRENCYHOOKS_H

#include <stdbool.h>
#include <stdint.h>

/// Receives a job enqueued on a thread that is driving a test scheduler.
typedef void (*marbles_capture_fn)(void *_Nonnull driver, void *_Nonnull job);

/// Receives a job the runtime was asked to run after a delay or at a deadline, on a thread that
/// is driving a test scheduler. `remaining_ns` is the delay (exact when `is_deadline` is false),
/// or the deadline minus the named clock's time when the hook ran.
typedef void (*marbles_capture_delayed_fn)(
    void *_Nonnull driver, void *_Nonnull job, long long remaining_ns, bool is_deadline, int clock);

/// Told that a driving thread that is not the main thread enqueued a main-actor job (which then
/// takes the usual path to the main queue).
typedef void (*marbles_main_escape_fn)(void *_Nonnull driver);

/// The callbacks the hooks route to.
typedef struct {
    marbles_capture_fn _Nonnull global;
    marbles_capture_fn _Nonnull main;
    marbles_capture_delayed_fn _Nonnull delayed;
    marbles_main_escape_fn _Nonnull main_escape;
} marbles_hook_callbacks;

/// Installs the Swift runtime's hooks once per process (global enqueue, main-executor enqueue,
/// enqueue with a delay and with a deadline), each chained to the hook that was there before.
/// Returns false when the runtime does not export `swift_task_enqueueGlobal_hook`.
bool marbles_enqueue_hook_install(marbles_hook_callbacks callbacks);

/// Which hooks are installed, as bits: 1 global, 2 main enqueue, 4 delay, 8 deadline, 16 get main executor.
int marbles_enqueue_hooks_installed(void);

/// Where the calling thread's work goes: `driver` gets its jobs (NULL: the runtime, as usual),
/// and `MainActor`'s executor is the serial executor `main_identity`/`main_witness` (NULL: the real one).
typedef struct {
    void *_Nullable driver;
    void *_Nullable main_identity;
    void *_Nullable main_witness;
} marbles_route;

/// Sets the calling thread's route; returns the one set before, to restore it.
marbles_route marbles_enqueue_hook_set_route(marbles_route route);

/// Enqueues `job` on the real main executor (not a driver's stand-in).
void marbles_enqueue_on_real_main(void *_Nonnull job);

/// Whether the calling thread is the process's main thread.
bool marbles_is_main_thread(void);

/// Calls the runtime's `swift_task_enqueueGlobalWithDelay` / `WithDeadline` entry points (for
/// tests of the hooks: Swift 6.3's `Task.sleep` goes through the task executor instead).
void marbles_enqueue_global_with_delay(unsigned long long delay_ns, void *_Nonnull job);
void marbles_enqueue_global_with_deadline_after(long long delay_ns, int clock, void *_Nonnull job);

/// Tests only: swaps in a hook as if another library had installed it before ours, returning
/// the one it replaces; `marbles_test_previous_hook_calls` counts calls that reached it.
void marbles_test_set_previous_delay_hook(bool on);
int marbles_test_previous_hook_calls(void);

#endif
