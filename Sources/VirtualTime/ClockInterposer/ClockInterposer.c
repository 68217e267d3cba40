#define _GNU_SOURCE
#include "CClockInterposer.h"
#include "CRuntimeHooks.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
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

static void find_ranges(void);

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

static int real_clock_gettime(clockid_t id, struct timespec *tp) {
    clock_gettime_fn next = atomic_load_explicit(&next_clock_gettime, memory_order_acquire);
    if (next == NULL) {
        // Called before the constructor ran (another library's constructor): ask the kernel.
        return (int)syscall(SYS_clock_gettime, id, tp);
    }
    return next(id, tp);
}

// The base a virtual reading adds virtual time to, for the clocks that have one.
static long long *base_for(marbles_virtual_clocks *clocks, clockid_t id) {
    switch (id) {
    case CLOCK_REALTIME: return &clocks->realtime_base_ns;
    case CLOCK_MONOTONIC: return &clocks->monotonic_base_ns;
    case CLOCK_BOOTTIME: return &clocks->boottime_base_ns;
    default: return NULL;
    }
}

static long long real_ns(clockid_t id) {
    struct timespec ts = {0, 0};
    real_clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// The real time elapsed between the scheduler's first drive and the first reading (real work,
// microseconds as a rule) is not counted: virtual time starts at real time when the run starts.
static void set_bases(marbles_virtual_clocks *clocks) {
    long long origin = clocks->origin_ns;
    clocks->realtime_base_ns = (clocks->has_start_date ? clocks->start_date_ns : real_ns(CLOCK_REALTIME)) - origin;
    clocks->monotonic_base_ns = real_ns(CLOCK_MONOTONIC) - origin;
    clocks->boottime_base_ns = real_ns(CLOCK_BOOTTIME) - origin;
    clocks->bases_set = true;
}

int clock_gettime(clockid_t id, struct timespec *tp) {
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    if (clocks != NULL) {
        uintptr_t caller = (uintptr_t)__builtin_return_address(0);
        long long *base = base_for(clocks, id);
        if (base != NULL && (lies_in(concurrency_text, concurrency_count, caller) ||
                             (id == CLOCK_REALTIME && lies_in(foundation_text, foundation_count, caller)))) {
            if (!clocks->bases_set) set_bases(clocks);
            long long now = *base + clocks->now_ns(clocks->context);
            clocks->reads += 1;
            *(id == CLOCK_REALTIME ? &clocks->realtime_reads
              : id == CLOCK_MONOTONIC ? &clocks->monotonic_reads
                                      : &clocks->boottime_reads) += 1;
            tp->tv_sec = (time_t)(now / 1000000000);
            tp->tv_nsec = (long)(now % 1000000000);
            return 0;
        }
    }
    return real_clock_gettime(id, tp);
}

void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *)) {
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    if (clocks != NULL && clocks->sleep != NULL && context != NULL &&
        lies_in(concurrency_text, concurrency_count, (uintptr_t)__builtin_return_address(0))) {
        if (!clocks->bases_set) set_bases(clocks);
        const uint64_t continuous_flag = 1ULL << 63;
        bool continuous = (when & continuous_flag) != 0;
        long long deadline = (long long)(when & ~continuous_flag);
        long long base = continuous ? clocks->boottime_base_ns : clocks->monotonic_base_ns;
        long long remaining = deadline - base - clocks->now_ns(clocks->context);
        clocks->sleep(clocks->owner, context, remaining, continuous ? marbles_clock_continuous : marbles_clock_suspending);
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

#else

bool marbles_clock_interposer_linked(void) { return false; }
const char *marbles_clock_gettime_next(void) { return ""; }

#endif
