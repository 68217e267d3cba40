#include "Run.h"
#include <dlfcn.h>

// The runtime's types, as its hook variables declare them (swift/Runtime/Concurrency.h and
// ConcurrencyHooks.def): each hook gets the arguments and the original implementation.
typedef struct Job Job;
typedef __attribute__((swiftcall)) void (*global_original)(Job *job);
typedef __attribute__((swiftcall)) void (*global_hook)(Job *job, global_original original);
typedef __attribute__((swiftcall)) void (*delay_original)(unsigned long long delay, Job *job);
typedef __attribute__((swiftcall)) void (*delay_hook)(unsigned long long delay, Job *job, delay_original original);
typedef __attribute__((swiftcall)) void (*deadline_original)(
    long long sec, long long nsec, long long tsec, long long tnsec, int clock, Job *job);
typedef __attribute__((swiftcall)) void (*deadline_hook)(
    long long sec, long long nsec, long long tsec, long long tnsec, int clock, Job *job, deadline_original original);

// The runtime's clock reading, the one `ContinuousClock.now` and `SuspendingClock.now` use.
extern void swift_get_time(long long *seconds, long long *nanoseconds, int clock);

typedef __attribute__((swiftcall)) marbles_executor_ref (*get_main_original)(void);
typedef __attribute__((swiftcall)) marbles_executor_ref (*get_main_hook)(get_main_original original);
extern __attribute__((swiftcall)) marbles_executor_ref swift_task_getMainExecutor(void);
extern __attribute__((swiftcall)) void swift_task_enqueue(Job *job, marbles_executor_ref executor);

static get_main_hook previous_get_main;
static global_hook previous_global;
static global_hook previous_main;
static delay_hook previous_delay;
static deadline_hook previous_deadline;
static int installed;
static pthread_once_t once = PTHREAD_ONCE_INIT;

// Every global enqueue in the process: to the driver of this thread, or of the member work
// running here (a continuation resumed from a block, a task started in a completion handler),
// or the usual path.
static __attribute__((swiftcall)) void marbles_global_hook(Job *job, global_original original) {
    void *driver = marbles_route_driver();
    if (driver != NULL) return MARBLES_SWIFT(global)(driver, job);
    if (marbles_members_return_job(job)) return;
    previous_global != NULL ? previous_global(job, original) : original(job);
}

// Main-actor jobs: run by the driver when it is the main thread (the test runs on the main
// actor); otherwise the main queue runs them, and the driver hears of it.
static __attribute__((swiftcall)) void marbles_main_hook(Job *job, global_original original) {
    void *driver = marbles_route_driver();
    if (driver != NULL && marbles_is_main_thread()) return MARBLES_SWIFT(main)(driver, job);
    if (driver != NULL) MARBLES_SWIFT(main_escape)(driver);
    previous_main != NULL ? previous_main(job, original) : original(job);
}

// `MainActor`'s executor, asked for at every hop and isolation check: on a driving thread the
// scheduler's stand-in, made when first asked for (Swift 6.3 enqueues main-actor jobs through the
// main executor's own `enqueue`, so this is where they can be caught).
static __attribute__((swiftcall)) marbles_executor_ref marbles_get_main_hook(get_main_original original) {
    void *driver = marbles_route_driver();
    if (driver != NULL) {
        marbles_executor_ref *standin = marbles_route_standin();
        if (standin->identity == NULL) *standin = MARBLES_SWIFT(main_standin)(driver);
        return *standin;
    }
    // Member work in a test on the main actor: its main-actor work goes to the test's stand-in.
    marbles_executor_ref standin = marbles_members_running_standin();
    if (standin.identity != NULL) return standin;
    return previous_get_main != NULL ? previous_get_main(original) : original();
}

static __attribute__((swiftcall)) void marbles_delay_hook(unsigned long long delay, Job *job, delay_original original) {
    void *driver = marbles_route_driver();
    long long ns = delay > (unsigned long long)INT64_MAX ? INT64_MAX : (long long)delay;
    if (driver != NULL) return MARBLES_SWIFT(delayed)(driver, job, ns, false, marbles_clock_continuous);
    previous_delay != NULL ? previous_delay(delay, job, original) : original(delay, job);
}

static __attribute__((swiftcall)) void marbles_deadline_hook(
    long long sec, long long nsec, long long tsec, long long tnsec, int clock, Job *job, deadline_original original) {
    void *driver = marbles_route_driver();
    if (driver != NULL) {
        long long now_sec = 0, now_nsec = 0;
        swift_get_time(&now_sec, &now_nsec, clock);
        // Saturating: a deadline decades away stays a very long sleep, not an overflow.
        __int128 remaining = ((__int128)sec - now_sec) * 1000000000 + ((__int128)nsec - now_nsec);
        long long ns = remaining > INT64_MAX ? INT64_MAX : remaining < INT64_MIN ? INT64_MIN : (long long)remaining;
        return MARBLES_SWIFT(delayed)(driver, job, ns, true, (marbles_clock_kind)clock);
    }
    previous_deadline != NULL ? previous_deadline(sec, nsec, tsec, tnsec, clock, job, original) : original(sec, nsec, tsec, tnsec, clock, job);
}

// Swaps our hook into the runtime's variable `name`, keeping the one before (bit: `installed`).
#define HOOK(name, previous, ours, bit)                                \
    do {                                                               \
        void **slot = dlsym(RTLD_DEFAULT, name);                       \
        if (slot == NULL) break;                                       \
        *(void **)&previous = *slot;                                   \
        *slot = (void *)ours;                                          \
        installed |= bit;                                              \
    } while (0)

static void install(void) {
    HOOK("swift_task_enqueueGlobal_hook", previous_global, marbles_global_hook, 1);
    if (installed == 0) return;
    HOOK("swift_task_enqueueMainExecutor_hook", previous_main, marbles_main_hook, 2);
    HOOK("swift_task_getMainExecutor_hook", previous_get_main, marbles_get_main_hook, 16);
    HOOK("swift_task_enqueueGlobalWithDelay_hook", previous_delay, marbles_delay_hook, 4);
    HOOK("swift_task_enqueueGlobalWithDeadline_hook", previous_deadline, marbles_deadline_hook, 8);
}

bool marbles_install(marbles_ops ops) {
    marbles_swift = ops;
    pthread_once(&once, install);
    return (installed & 1) != 0;
}

int marbles_runtime_hooks_installed(void) { return installed; }

extern __attribute__((swiftcall)) void swift_task_enqueueGlobal(Job *job);

// With no route and no member work on this thread, so that the hooks take the usual paths.
void marbles_enqueue_past_hooks(void *job, bool main) {
    marbles_route saved = marbles_route_set((marbles_route){0});
    marbles_member_context outside = marbles_members_enter(NULL, -1);
    main ? swift_task_enqueue(job, swift_task_getMainExecutor()) : swift_task_enqueueGlobal(job);
    marbles_members_leave(outside);
    marbles_route_set(saved);
}

// A stand-in for a hook another library installed before ours: it counts, then takes the usual path.
static atomic_int test_previous_calls;
static __attribute__((swiftcall)) void test_previous_delay_hook(unsigned long long delay, Job *job, delay_original original) {
    atomic_fetch_add(&test_previous_calls, 1);
    original(delay, job);
}

void marbles_test_set_previous_delay_hook(bool on) { previous_delay = on ? test_previous_delay_hook : NULL; }

int marbles_test_previous_hook_calls(void) { return atomic_load(&test_previous_calls); }
