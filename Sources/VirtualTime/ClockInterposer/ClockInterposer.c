#define _GNU_SOURCE
#include "CClockInterposer.h"
#include "InterposerShared.h"

#if defined(__linux__)
#include <dlfcn.h>
#if defined(__GLIBC__)
#include <execinfo.h>
#endif
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// `ContinuousClock.now`, `SuspendingClock.now` and every `Task.sleep` deadline come from
// `swift_get_time` in libswift_Concurrency.so, which is PROTECTED (not interposable) but calls
// `clock_gettime` through the PLT; Foundation's `Date()` calls `clock_gettime(CLOCK_REALTIME)`
// through the PLT from libFoundationEssentials.so (measured on Swift 6.3.1: continuous is
// CLOCK_BOOTTIME, suspending CLOCK_MONOTONIC). The definition below, linked into the test
// executable, takes those calls. It answers with virtual time only on a thread that drives a
// run (a thread-local set with the route) and only for those callers; everything else goes on to
// the next definition: ThreadSanitizer's interceptor when it is linked, else the next library's
// (libc's), found once.

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static _Atomic(clock_gettime_fn) next_clock_gettime;

// The executable segments of the libraries whose reads are virtual (set once, under `once`).
typedef struct {
    uintptr_t start, end;
} text_range;
enum { max_ranges = 8 };
static text_range concurrency_text[max_ranges];
static int concurrency_count;
static text_range foundation_text[max_ranges];
static int foundation_count;
static text_range dispatch_text[max_ranges];
static int dispatch_count;
// Swift Testing's: its reads (an issue's or an event's timestamp) are virtual but not the code's.
static text_range testing_text[max_ranges];
static int testing_count;
// FoundationNetworking's: URLSession's own timers (libcurl's and a request's timeout) pace real
// I/O, and stay real.
static text_range networking_text[max_ranges];
static int networking_count;
static pthread_once_t ranges_once = PTHREAD_ONCE_INIT;

// The definition ours stands in front of: a sanitizer's interceptor is a weak definition in the
// same executable, which ours replaced at link time, so chain to it and it keeps seeing the
// calls; else the next library's.
static void *find_next(const char *name, const char *interceptor, void *ours) {
    void *candidate = dlsym(RTLD_DEFAULT, interceptor);
    if (candidate == NULL || candidate == ours) candidate = dlsym(RTLD_NEXT, name);
    return candidate == ours ? NULL : candidate;
}

// `Task.sleep` in a task that has no task executor preference and runs on a default actor (or
// hops off one) goes to the default executor, which hands the sleeper to Dispatch here:
// `dispatch_after_f(deadline, timer queue, job, run job)` from libswift_Concurrency, the deadline
// being the one computed from the (virtual) clock: nanoseconds on CLOCK_MONOTONIC for
// `SuspendingClock`, the same with the top bit set for `ContinuousClock` (CLOCK_BOOTTIME).
typedef void (*dispatch_after_f_fn)(uint64_t when, void *queue, void *context, void (*work)(void *));
static _Atomic(dispatch_after_f_fn) next_dispatch_after_f;
void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *));

// Work handed to other threads inside a run (ForeignWork.c in CRuntimeHooks): `DispatchQueue`'s
// `async` and `asyncAfter` (libswiftDispatch calls the block forms), their `_f` forms, and
// Foundation's `Thread` (`pthread_create` from libFoundation), submitted on a driving thread or
// from work already tracked, are tracked so that the run waits for them at the current virtual
// instant. A timer submitted on a driving thread whose clocks are virtual is due at virtual time
// instead (the tracker's timer callback), and the main queue's work, in a test on the main actor,
// runs in the scheduler's loop. The Swift runtime's own calls (its global executor) and
// libdispatch's calls to itself pass through.
typedef void (*dispatch_async_fn)(void *queue, void *block);
typedef void (*dispatch_async_f_fn)(void *queue, void *context, void (*work)(void *));
typedef void (*dispatch_after_fn)(uint64_t when, void *queue, void *block);
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef void (*dispatch_group_f_fn)(void *group, void *queue, void *context, void (*work)(void *));
typedef void (*dispatch_group_fn)(void *group, void *queue, void *block);
static _Atomic(dispatch_group_f_fn) next_dispatch_group_async_f;
static _Atomic(dispatch_group_f_fn) next_dispatch_group_notify_f;
static _Atomic(dispatch_group_fn) next_dispatch_group_async;
static _Atomic(dispatch_group_fn) next_dispatch_group_notify;
void dispatch_group_async(void *group, void *queue, void *block);
void dispatch_group_notify(void *group, void *queue, void *block);
static _Atomic(dispatch_async_fn) next_dispatch_async;
static _Atomic(dispatch_async_f_fn) next_dispatch_async_f;
static _Atomic(dispatch_after_fn) next_dispatch_after;
static _Atomic(pthread_create_fn) next_pthread_create;
void *marbles_ip_main_queue;

// A slot's next definition, found now if the constructor has not run yet (another library's
// constructor calls in first): work submitted then must reach libdispatch, not be dropped.
void *marbles_ip_next_in(void *_Atomic *slot, const char *name, const char *interceptor, void *ours) {
    void *next = atomic_load_explicit(slot, memory_order_acquire);
    if (next == NULL) {
        next = find_next(name, interceptor, ours);
        atomic_store_explicit(slot, next, memory_order_release);
    }
    return next;
}
void dispatch_async(void *queue, void *block);
void dispatch_async_f(void *queue, void *context, void (*work)(void *));
void dispatch_after(uint64_t when, void *queue, void *block);
int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument);
static void submit_untracked(void *queue, void *context, void (*work)(void *));
static bool after_f_tracked(uint64_t when, void *queue, void *context, void (*work)(void *), uintptr_t caller);

static void find_ranges(void);
void dispatch_retain(void *object);
void dispatch_release(void *object);
static int real_clock_gettime(clockid_t id, struct timespec *tp);

__attribute__((constructor)) static void resolve_next(void) {
    atomic_store_explicit(
        &next_clock_gettime,
        (clock_gettime_fn)find_next("clock_gettime", "__interceptor_clock_gettime", (void *)clock_gettime),
        memory_order_release);
    atomic_store_explicit(
        &next_dispatch_after_f,
        (dispatch_after_f_fn)find_next("dispatch_after_f", "__interceptor_dispatch_after_f", (void *)dispatch_after_f),
        memory_order_release);
    // The libraries whose reads can be virtual are linked, so loaded by now: find their code
    // once, here, so that a read on a driving thread checks nothing more (a library loaded
    // later with dlopen keeps real reads; the probe at the first run then finds the clocks real).
    pthread_once(&ranges_once, find_ranges);
    marbles_ip_main_queue = marbles_main_queue();
    marbles_register_submit(submit_untracked);
    marbles_clock_interposer_register(marbles_clock_gettime_next);
}

static int ends_with(const char *name, const char *suffix) {
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcmp(name + n - s, suffix) == 0;
}

static int note_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    const char *name = info->dlpi_name;
    if (name == NULL) return 0;
    text_range *ranges;
    int *count;
    if (ends_with(name, "/libswift_Concurrency.so")) {
        ranges = concurrency_text;
        count = &concurrency_count;
    } else if (ends_with(name, "/libFoundationEssentials.so") || ends_with(name, "/libFoundation.so")) {
        ranges = foundation_text;
        count = &foundation_count;
    } else if (ends_with(name, "/libdispatch.so")) {
        ranges = dispatch_text;
        count = &dispatch_count;
    } else if (ends_with(name, "/libFoundationNetworking.so")) {
        ranges = networking_text;
        count = &networking_count;
    } else if (ends_with(name, "/libTesting.so")) {
        ranges = testing_text;
        count = &testing_count;
    } else {
        return 0;
    }
    for (int i = 0; i < info->dlpi_phnum && *count < max_ranges; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        ranges[(*count)++] = (text_range){start, start + header->p_memsz};
    }
    return 0;
}

static void find_ranges(void) { dl_iterate_phdr(note_library, NULL); }

static int lies_in(const text_range *ranges, int count, uintptr_t address) {
    for (int i = 0; i < count; i++) {
        if (address >= ranges[i].start && address < ranges[i].end) return 1;
    }
    return 0;
}

int marbles_ip_real_clock_gettime(clockid_t id, struct timespec *tp) { return real_clock_gettime(id, tp); }

bool marbles_ip_from_foundation(uintptr_t caller) { return lies_in(foundation_text, foundation_count, caller); }

bool marbles_ip_from_runtime(uintptr_t caller) {
    return lies_in(concurrency_text, concurrency_count, caller) || lies_in(dispatch_text, dispatch_count, caller);
}

bool marbles_ip_called_from_networking(void) {
#if defined(__GLIBC__)
    if (networking_count == 0) return false;
    void *frames[6];
    int depth = backtrace(frames, 6);
    for (int i = 1; i < depth; i++) {
        if (lies_in(networking_text, networking_count, (uintptr_t)frames[i])) return true;
    }
#endif
    return false;
}

static int real_clock_gettime(clockid_t id, struct timespec *tp) {
    clock_gettime_fn next = atomic_load_explicit(&next_clock_gettime, memory_order_acquire);
    if (next == NULL) {
        // Called before the constructor ran (another library's constructor): ask the kernel.
        return (int)syscall(SYS_clock_gettime, id, tp);
    }
    return next(id, tp);
}

// Which of a run's bases a clock reads (-1: none).
static int base_index(clockid_t id) { return id == CLOCK_REALTIME ? 0 : id == CLOCK_MONOTONIC ? 1 : id == CLOCK_BOOTTIME ? 2 : -1; }

static long long real_ns(clockid_t id) {
    struct timespec ts = {0, 0};
    real_clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// Past this many reads of one clock at one virtual instant, a job is taken to wait for the clock
// to move (a busy wait), which it never does while the job runs: the reading then moves with
// real time, so the loop ends, and the run reports it.
enum { spin_limit = 1000000 };

// `source`: the clock id, or `dispatch_source` for libdispatch's reads.
enum { dispatch_source = 100 };

static long long virtual_reading(marbles_run *clocks, clockid_t id, int source, int base) {
    long long virtual_now = marbles_run_now(clocks);
    long long reading = clocks->bases[base] + virtual_now;
    if (clocks->spin_now_ns != virtual_now) {
        clocks->spin_now_ns = virtual_now;
        clocks->spin_reads = 0;
        clocks->spin_clock = -1;
        return reading;
    }
    if (clocks->spin_clock == source) return clocks->spin_virtual_ns + (real_ns(id) - clocks->spin_real_ns);
    if (++clocks->spin_reads < spin_limit || clocks->spin_clock != -1) return reading;
    clocks->spin_clock = source;
    clocks->spin_real_ns = real_ns(id);
    clocks->spin_virtual_ns = reading;
    clocks->spin_at_ns = virtual_now;
    clocks->spins += 1;
    return reading;
}

// Whether Swift Testing made this read (an issue's or an event's timestamp, `SuspendingClock.now`
// with a wall-clock reading of its own), found among the frames above it. Only for
// CLOCK_MONOTONIC, the clock Swift Testing reads through the runtime: `Task.sleep` reads the
// continuous clock, and unwinding at every sleep made a `Task.sleep` loop 3.4x slower. Looked for
// only in the first reads of an instant: a busy wait pays for no unwinding.
static bool read_by_test_framework(const marbles_run *clocks, clockid_t id) {
#if defined(__GLIBC__)
    if (id != CLOCK_MONOTONIC || testing_count == 0 || clocks->spin_reads > 64) return false;
    void *frames[12];
    int depth = backtrace(frames, 12);
    for (int i = 1; i < depth; i++) {
        if (lies_in(testing_text, testing_count, (uintptr_t)frames[i])) return true;
    }
#else
    (void)clocks;
    (void)id;
#endif
    return false;
}

// A real read on a driving thread under MARBLES_PORTABLE=1, counted by clock as a virtual one
// would be (the same callers, Swift Testing's left out).
static void count_real_read(marbles_run *home, clockid_t id, uintptr_t caller) {
    bool dispatch = id != CLOCK_REALTIME && lies_in(dispatch_text, dispatch_count, caller);
    bool counted = lies_in(concurrency_text, concurrency_count, caller) ||
                   (id == CLOCK_REALTIME && lies_in(foundation_text, foundation_count, caller)) || dispatch;
    if (!counted || base_index(id) < 0 || read_by_test_framework(home, id)) return;
    *(dispatch ? &home->dispatch_reads
      : id == CLOCK_REALTIME  ? &home->realtime_reads
      : id == CLOCK_MONOTONIC ? &home->monotonic_reads
                              : &home->boottime_reads) += 1;
}

int clock_gettime(clockid_t id, struct timespec *tp) {
    marbles_run *clocks = marbles_route_virtual();
    if (clocks == NULL) {
        marbles_run *home = marbles_route_run();
        if (home != NULL && home->count_real_reads) count_real_read(home, id, (uintptr_t)__builtin_return_address(0));
        // A member of a run (work it handed to another thread) reads the instant being settled,
        // Foundation's uptime included (`Thread.sleep` measures what is left of its sleep with it).
        marbles_members *member = home == NULL && marbles_running_members != NULL ? marbles_member() : NULL;
        int which = base_index(id);
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        if (member != NULL && which >= 0 &&
            (lies_in(concurrency_text, concurrency_count, caller) || lies_in(foundation_text, foundation_count, caller) ||
             (which != 0 && lies_in(dispatch_text, dispatch_count, caller)))) {
            long long now = marbles_member_reading(member, which);
            tp->tv_sec = (time_t)(now / 1000000000);
            tp->tv_nsec = (long)(now % 1000000000);
            return 0;
        }
    } else {
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        int base = base_index(id);
        // libdispatch's reads (`DispatchTime.now()`, a timer's deadline) are virtual too, so that
        // an `asyncAfter` submitted on the driving thread is due at virtual time.
        if (base >= 0 && (lies_in(concurrency_text, concurrency_count, caller) ||
                             (id == CLOCK_REALTIME && lies_in(foundation_text, foundation_count, caller)) ||
                             (id != CLOCK_REALTIME && lies_in(dispatch_text, dispatch_count, caller)))) {
            if (!clocks->bases_set) marbles_run_set_bases(clocks);
            int source = id != CLOCK_REALTIME && lies_in(dispatch_text, dispatch_count, caller) ? dispatch_source : (int)id;
            long long now = virtual_reading(clocks, id, source, base);
            clocks->reads += 1;
            if (!read_by_test_framework(clocks, id)) {
                *(source == dispatch_source ? &clocks->dispatch_reads
                  : id == CLOCK_REALTIME    ? &clocks->realtime_reads
                  : id == CLOCK_MONOTONIC   ? &clocks->monotonic_reads
                                            : &clocks->boottime_reads) += 1;
            }
            tp->tv_sec = (time_t)(now / 1000000000);
            tp->tv_nsec = (long)(now % 1000000000);
            return 0;
        }
    }
    return real_clock_gettime(id, tp);
}

void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *)) {
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    if (!lies_in(concurrency_text, concurrency_count, caller) && after_f_tracked(when, queue, context, work, caller)) return;
    marbles_run *clocks = marbles_route_virtual();
    if (clocks != NULL && clocks->owner != NULL && context != NULL && lies_in(concurrency_text, concurrency_count, caller)) {
        if (!clocks->bases_set) marbles_run_set_bases(clocks);
        const uint64_t continuous_flag = 1ULL << 63;
        bool continuous = (when & continuous_flag) != 0;
        long long remaining = (long long)(when & ~continuous_flag) - clocks->bases[continuous ? 2 : 1] - marbles_run_now(clocks);
        MARBLES_SWIFT(sleep)(clocks->owner, context, remaining, continuous ? marbles_clock_continuous : marbles_clock_suspending);
        return;
    }
    dispatch_after_f_fn next = atomic_load_explicit(&next_dispatch_after_f, memory_order_acquire);
    if (next == NULL) {
        // Called before the constructor ran (another library's constructor): find it now.
        next = (dispatch_after_f_fn)find_next("dispatch_after_f", "__interceptor_dispatch_after_f", (void *)dispatch_after_f);
        atomic_store_explicit(&next_dispatch_after_f, next, memory_order_release);
    }
    if (next != NULL) next(when, queue, context, work);
}

bool marbles_clock_interposer_linked(void) {
    pthread_once(&ranges_once, find_ranges);
    return marbles_clock_interposer_registered() && atomic_load_explicit(&next_clock_gettime, memory_order_acquire) != NULL &&
           concurrency_count > 0;
}

const char *marbles_clock_gettime_next(void) {
    void *next = (void *)atomic_load_explicit(&next_clock_gettime, memory_order_acquire);
    Dl_info info;
    if (next == NULL || dladdr(next, &info) == 0) return "";
    return info.dli_sname != NULL ? info.dli_sname : (info.dli_fname != NULL ? info.dli_fname : "");
}

// MARK: Member work

static void submit_untracked(void *queue, void *context, void (*work)(void *)) {
    dispatch_async_f_fn next = NEXT(next_dispatch_async_f, dispatch_async_f_fn, "dispatch_async_f", dispatch_async_f);
    if (next != NULL) next(queue, context, work);
}

// The tracker for a submission from `caller`: none for the Swift runtime's and libdispatch's own.
marbles_members *marbles_ip_members_for(uintptr_t caller) {
    marbles_members *members = marbles_members_here();
    if (members == NULL) return NULL;
    if (lies_in(concurrency_text, concurrency_count, caller) || lies_in(dispatch_text, dispatch_count, caller)) return NULL;
    return members;
}

marbles_members *marbles_ip_timers_here(void) {
    marbles_members *driven = marbles_route_members();
    return driven != NULL && marbles_driving_virtually(driven) ? driven : marbles_member();
}

// The time left to `when` on the clock it encodes (libdispatch: uptime, or with bit 63 the
// monotonic clock that counts sleep; wall-clock deadlines stay real), read on the run's clocks:
// the driver's now, or the instant being settled for a member.
bool marbles_ip_virtual_remaining(marbles_members *members, uint64_t when, long long *remaining) {
    if (members == NULL || when == UINT64_MAX || (when >> 62) == 1 || (when >> 62) == 3) return false;
    int which = (when >> 62) == 0 ? 1 : 2;
    long long now;
    if (marbles_driving_virtually(members)) {
        marbles_run *run = marbles_route_virtual();
        if (!run->bases_set) marbles_run_set_bases(run);
        now = run->bases[which] + marbles_run_now(run);
    } else if (marbles_member() == members) {
        now = marbles_member_reading(members, which);
    } else {
        return false;
    }
    *remaining = (long long)(when & ~(1ULL << 63)) - now;
    return true;
}

// `Date()` on a driving thread whose clocks are virtual, in nanoseconds since 1970 (not counted
// as a read of the code under test); false elsewhere.
bool marbles_ip_virtual_date_ns(long long *now) {
    marbles_run *clocks = marbles_route_virtual();
    if (clocks == NULL) return false;
    if (!clocks->bases_set) marbles_run_set_bases(clocks);
    *now = clocks->bases[0] + marbles_run_now(clocks);
    return true;
}

// Hands `work(context)` to the driver (see `marbles_members_hand`).
static void hand(marbles_members *members, void *queue, long long remaining, void *context, void (*work)(void *)) {
    marbles_members_hand(members, marbles_members_now(members), remaining, queue, context, work, false);
}

// A timer set from tracked work on another thread: real time, but waited for.
// The main queue's, submitted on the driving thread with real clocks (MARBLES_PORTABLE=1): that
// thread is the one the main queue waits for, so tracked it could only stall the run to its
// bound; it goes untracked, as on Apple platforms, and the run names it.
static void after_tracked(marbles_members *members, uint64_t when, void *queue, void *context, void (*work)(void *)) {
    dispatch_after_f_fn next = NEXT(next_dispatch_after_f, dispatch_after_f_fn, "dispatch_after_f", dispatch_after_f);
    if (queue == marbles_ip_main_queue && marbles_route_members() == members) {
        marbles_members_note_escape_on(members, "a Dispatch timer", queue);
        next(when, queue, context, work);
        return;
    }
    next(when, queue, marbles_members_wrap(members, marbles_work_timer, "a timer", context, work), marbles_members_run_wrapped);
}

static bool on_main_queue_in_loop(marbles_members *members, void *queue) {
    return queue == marbles_ip_main_queue && marbles_driving(members);
}

// Main-queue work from tracked work on another thread, while the test runs on the main actor:
// the thread that drains the main queue is the one waiting for this work, so the driver takes
// it and runs it in its loop at the instant being settled.
static bool held_for_main_loop(marbles_members *members, void *queue, void *context, void (*work)(void *)) {
    return queue == marbles_ip_main_queue && marbles_route_members() != members && marbles_members_hold_main(members, context, work, false);
}

void dispatch_async(void *queue, void *block) {
    marbles_members *members = marbles_ip_members_for((uintptr_t)__builtin_return_address(0));
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy != NULL) {
        if (on_main_queue_in_loop(members, queue)) {
            hand(members, queue, 0, copy, marbles_invoke_block);
        } else if (!held_for_main_loop(members, queue, copy, marbles_invoke_block)) {
            marbles_members_submit(members, queue, marbles_work_block, copy, marbles_invoke_block);
        }
        return;
    }
    dispatch_async_fn next = NEXT(next_dispatch_async, dispatch_async_fn, "dispatch_async", dispatch_async);
    if (next != NULL) next(queue, block);
}

void dispatch_async_f(void *queue, void *context, void (*work)(void *)) {
    marbles_members *members = marbles_ip_members_for((uintptr_t)__builtin_return_address(0));
    if (members != NULL) {
        if (on_main_queue_in_loop(members, queue)) {
            hand(members, queue, 0, context, work);
        } else if (!held_for_main_loop(members, queue, context, work)) {
            marbles_members_submit(members, queue, marbles_work_function, context, work);
        }
        return;
    }
    submit_untracked(queue, context, work);
}

// `DispatchQueue.main.sync` from tracked work on another thread, while the test runs on the
// main actor: the main queue's thread is the driver, waiting for this very work, so the driver
// runs the block at once (in its loop, on the main actor) and the caller goes on when it has run.
typedef void (*dispatch_sync_fn)(void *queue, void *block);
typedef void (*dispatch_sync_f_fn)(void *queue, void *context, void (*work)(void *));
static _Atomic(dispatch_sync_fn) next_dispatch_sync;
static _Atomic(dispatch_sync_f_fn) next_dispatch_sync_f;
void dispatch_sync(void *queue, void *block);
void dispatch_sync_f(void *queue, void *context, void (*work)(void *));

typedef struct {
    void *context;
    void (*work)(void *);
    sem_t done;
} sync_call;

static void run_sync_call(void *raw) {
    sync_call *call = raw;
    call->work(call->context);
    sem_post(&call->done);
}

static bool sync_in_main_loop(void *queue, void *context, void (*work)(void *), uintptr_t caller) {
    if (queue != marbles_ip_main_queue) return false;
    marbles_members *members = marbles_ip_members_for(caller);
    if (members == NULL || marbles_route_members() == members) return false;
    sync_call call = {context, work};
    sem_init(&call.done, 0, 0);
    bool held = marbles_members_hold_main(members, &call, run_sync_call, true);
    if (held) {
        while (sem_wait(&call.done) != 0 && errno == EINTR) {}
    }
    sem_destroy(&call.done);
    return held;
}

void dispatch_sync(void *queue, void *block) {
    if (sync_in_main_loop(queue, block, marbles_call_block, (uintptr_t)__builtin_return_address(0))) return;
    dispatch_sync_fn next = NEXT(next_dispatch_sync, dispatch_sync_fn, "dispatch_sync", dispatch_sync);
    if (next != NULL) next(queue, block);
}

void dispatch_sync_f(void *queue, void *context, void (*work)(void *)) {
    if (sync_in_main_loop(queue, context, work, (uintptr_t)__builtin_return_address(0))) return;
    dispatch_sync_f_fn next = NEXT(next_dispatch_sync_f, dispatch_sync_f_fn, "dispatch_sync_f", dispatch_sync_f);
    if (next != NULL) next(queue, context, work);
}

// A timer's queue lives until its work has run there, as with libdispatch's own timers (code
// passes a queue it lets go of at once: `DispatchQueue(label:).asyncAfter`). Released on the
// queue, by the work's end.
typedef struct {
    void *queue;
    void *context;
    void (*work)(void *);
} kept_queue;

static void run_and_let_go(void *raw) {
    kept_queue it = *(kept_queue *)raw;
    free(raw);
    it.work(it.context);
    dispatch_release(it.queue);
}

static void virtual_after(marbles_members *members, void *queue, long long remaining, void *context, void (*work)(void *)) {
    if (queue == marbles_ip_main_queue) return hand(members, queue, remaining, context, work);
    kept_queue *it = malloc(sizeof(kept_queue));
    if (it == NULL) abort();
    *it = (kept_queue){queue, context, work};
    dispatch_retain(queue);
    hand(members, queue, remaining, it, run_and_let_go);
}

void dispatch_after(uint64_t when, void *queue, void *block) {
    marbles_members *members = marbles_ip_members_for((uintptr_t)__builtin_return_address(0));
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy != NULL) {
        long long remaining;
        if (marbles_ip_virtual_remaining(members, when, &remaining)) {
            virtual_after(members, queue, remaining, copy, marbles_invoke_block);
        } else {
            after_tracked(members, when, queue, copy, marbles_invoke_block);
        }
        return;
    }
    dispatch_after_fn next = NEXT(next_dispatch_after, dispatch_after_fn, "dispatch_after", dispatch_after);
    if (next != NULL) next(when, queue, block);
}

// The `_f` form from the code under test (the Swift runtime's sleeps come through
// `dispatch_after_f` above).
static bool after_f_tracked(uint64_t when, void *queue, void *context, void (*work)(void *), uintptr_t caller) {
    marbles_members *members = marbles_ip_members_for(caller);
    if (members == NULL) return false;
    long long remaining;
    if (marbles_ip_virtual_remaining(members, when, &remaining)) {
        virtual_after(members, queue, remaining, context, work);
    } else {
        after_tracked(members, when, queue, context, work);
    }
    return true;
}

typedef struct {
    marbles_members *members;
    long long sequence;
    void *(*start)(void *);
    void *argument;
} tracked_thread;

static void *run_tracked_thread(void *raw) {
    tracked_thread t = *(tracked_thread *)raw;
    free(raw);
    marbles_member_context saved = marbles_members_enter(t.members, t.sequence);
    void *result = t.start(t.argument);
    marbles_members_leave(saved);
    marbles_members_end(t.members, t.sequence);
    return result;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    pthread_create_fn next = NEXT(next_pthread_create, pthread_create_fn, "pthread_create", pthread_create);
    marbles_members *members = marbles_members_here();
    // Only Foundation's `Thread`: libdispatch and the runtime start threads of their own.
    if (members == NULL || !lies_in(foundation_text, foundation_count, (uintptr_t)__builtin_return_address(0))) {
        return next(thread, attributes, start, argument);
    }
    tracked_thread *t = malloc(sizeof(tracked_thread));
    if (t == NULL) abort();
    *t = (tracked_thread){members, marbles_members_begin(members, marbles_work_thread, "a Thread"), start, argument};
    int status = next(thread, attributes, run_tracked_thread, t);
    if (status != 0) {
        marbles_members_end(members, t->sequence);
        free(t);
    }
    return status;
}

// `DispatchQueue.async(group:)` and `DispatchGroup.notify(queue:)`: the block runs as tracked work
// in the group as before. A notification is out from the moment it is registered until it has
// run, so the run waits for the group to empty. A block's leave goes through
// `dispatch_group_leave` (Waits.c), so that a member waiting on the group works again before
// the block counts as done.
void dispatch_release(void *object);
void dispatch_group_enter(void *group);
void dispatch_group_leave(void *group);

typedef struct {
    void *block;
    void *group;
} group_block;

static void run_group_block(void *raw) {
    group_block *it = raw;
    marbles_invoke_block(it->block);
    dispatch_group_leave(it->group);
    dispatch_release(it->group);
    free(it);
}

static bool group_tracked(void *group, void *queue, void *block, dispatch_group_f_fn next, bool notify, uintptr_t caller) {
    // The main queue's notification stays as it was: the loop does not run group work.
    marbles_members *members = next != NULL && queue != marbles_ip_main_queue ? marbles_ip_members_for(caller) : NULL;
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy == NULL) return false;
    if (notify) {
        next(group, queue, marbles_members_wrap_notification(members, group, copy, marbles_invoke_block), marbles_members_run_wrapped);
        return true;
    }
    group_block *it = malloc(sizeof(group_block));
    if (it == NULL) abort();
    *it = (group_block){copy, group};
    dispatch_retain(group);
    dispatch_group_enter(group);
    marbles_members_submit(members, queue, marbles_work_block, it, run_group_block);
    return true;
}

void dispatch_group_async(void *group, void *queue, void *block) {
    dispatch_group_f_fn tracked = NEXT(next_dispatch_group_async_f, dispatch_group_f_fn, "dispatch_group_async_f", NULL);
    if (group_tracked(group, queue, block, tracked, false, (uintptr_t)__builtin_return_address(0))) return;
    dispatch_group_fn next = NEXT(next_dispatch_group_async, dispatch_group_fn, "dispatch_group_async", dispatch_group_async);
    if (next != NULL) next(group, queue, block);
}

void dispatch_group_notify(void *group, void *queue, void *block) {
    dispatch_group_f_fn tracked = NEXT(next_dispatch_group_notify_f, dispatch_group_f_fn, "dispatch_group_notify_f", NULL);
    if (group_tracked(group, queue, block, tracked, true, (uintptr_t)__builtin_return_address(0))) return;
    dispatch_group_fn next = NEXT(next_dispatch_group_notify, dispatch_group_fn, "dispatch_group_notify", dispatch_group_notify);
    if (next != NULL) next(group, queue, block);
}

#else

bool marbles_clock_interposer_linked(void) { return false; }
const char *marbles_clock_gettime_next(void) { return ""; }

#endif
