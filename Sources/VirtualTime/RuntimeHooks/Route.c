// The route: which driver and run the calling thread serves, and the calls into Swift. The
// lowest layer: it depends on nothing else in C (Run.h draws the layers).
#include "Run.h"
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

marbles_ops marbles_swift;
__attribute__((weak)) void (*const marbles_loop_timer_work)(void *) = NULL;
MARBLES_THREAD_LOCAL unsigned marbles_held_ranks;

static MARBLES_THREAD_LOCAL marbles_route current;
static MARBLES_THREAD_LOCAL void *watch_record;
static const char *_Atomic interposer_next_name;
static int (*_Atomic real_clock)(clockid_t, struct timespec *);

marbles_route marbles_route_set(marbles_route route) {
    marbles_route previous = current;
    current = route;
    current.virtual_clocks = route.virtual_clocks && route.run != NULL;
    return previous;
}

bool marbles_route_is(void *driver, marbles_run *run, bool virtual_clocks) {
    return driver != NULL && current.driver == driver && current.run == run && current.virtual_clocks == virtual_clocks;
}

void *marbles_route_driver(void) { return current.driver; }

marbles_executor_ref *marbles_route_standin(void) { return &current.standin; }

marbles_run *marbles_route_run(void) { return current.run; }

marbles_run *marbles_route_virtual(void) { return current.virtual_clocks ? current.run : NULL; }

marbles_members *marbles_route_members(void) { return current.run != NULL ? current.run->members : NULL; }

// The definition past the interposer's (it answers the executable's own reads with virtual
// time in a run), once it registered; before, and where it is not linked, ours reads real time.
long long marbles_real_ns(int clock) {
    int (*read)(clockid_t, struct timespec *) = atomic_load_explicit(&real_clock, memory_order_acquire);
    struct timespec ts = {0, 0};
    (read != NULL ? read : clock_gettime)((clockid_t)clock, &ts);
    return marbles_ns_of(&ts);
}

// The real time a run spent before its first reading is not counted: virtual time starts at
// real time (or the start date) when the scheduler first drove.
void marbles_run_set_bases(marbles_run *run) {
    long long origin = run->origin_ns;
    run->bases[0] = (run->has_start_date ? run->start_date_ns : marbles_real_ns(CLOCK_REALTIME)) - origin;
    run->bases[1] = marbles_real_ns(CLOCK_MONOTONIC) - origin;
    run->bases[2] = marbles_real_ns(CLOCK_BOOTTIME) - origin;
    run->bases_set = true;
}

void *marbles_watch_record(void) { return watch_record; }

void marbles_watch_record_set(void *record) { watch_record = record; }

void marbles_clock_interposer_register(const char *next_name, int (*real)(clockid_t, struct timespec *)) {
    atomic_store(&real_clock, real);
    atomic_store(&interposer_next_name, next_name);
}

const char *marbles_clock_interposer_next_name(void) { return atomic_load(&interposer_next_name); }

bool marbles_is_main_thread(void) {
#if defined(__APPLE__)
    return pthread_main_np() != 0;
#elif defined(__linux__)
    // A thread's identity never changes: two system calls once per thread, not per test run
    // (they were a tenth of a small test's cost). 0 unknown, 1 main, 2 not. (A forked child's
    // threads start with the parent's value: tests do not fork.)
    static MARBLES_THREAD_LOCAL int known = 0;
    if (known == 0) known = syscall(SYS_gettid) == getpid() ? 1 : 2;
    return known == 1;
#else
    return false;
#endif
}
