// The system clocks of a run on virtual time (Linux), and the chain to the next definitions (a
// sanitizer's interceptor, else libc's). Which callers read virtual time: docs/DESIGN.md,
// "Virtual clocks (Linux)".
#include "InterposerShared.h"

#if defined(__linux__)
#include <dlfcn.h>
#if defined(__GLIBC__)
#include <execinfo.h>
#endif
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

INTERPOSED(int, clock_gettime, clockid_t id, struct timespec *tp);

// The executable segments of the libraries whose calls matter, found once at load (a library
// dlopened later keeps real reads). Swift Testing's reads are not the code's; FoundationNetworking's
// timers pace real I/O.
enum { lib_concurrency, lib_foundation, lib_dispatch, lib_testing, lib_networking, lib_main, lib_count, max_ranges = 8 };
static const char *const lib_names[] = {
    "/libswift_Concurrency.so", "/libFoundationEssentials.so", "/libdispatch.so", "/libTesting.so", "/libFoundationNetworking.so",
    "/libFoundation.so"};
static struct {
    struct {
        uintptr_t start, end;
    } ranges[max_ranges];
    int count;
} libs[lib_count];

static int note_library(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    size_t length = info->dlpi_name != NULL ? strlen(info->dlpi_name) : 0;
    // The first object is the executable (no name): code linked into it, SwiftNIO's included.
    static bool first = true;
    int lib = first && length == 0 ? lib_main : -1;
    first = false;
    for (int name = 0; name < 6 && lib < 0; name++) {
        size_t suffix = strlen(lib_names[name]);
        if (length >= suffix && strcmp(info->dlpi_name + length - suffix, lib_names[name]) == 0) lib = name == 5 ? lib_foundation : name;
    }
    for (int i = 0; lib >= 0 && i < info->dlpi_phnum && libs[lib].count < max_ranges; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_X) == 0) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        libs[lib].ranges[libs[lib].count].start = start;
        libs[lib].ranges[libs[lib].count++].end = start + header->p_memsz;
    }
    return 0;
}

static bool in(int lib, uintptr_t address) {
    for (int i = 0; i < libs[lib].count; i++) {
        if (address >= libs[lib].ranges[i].start && address < libs[lib].ranges[i].end) return true;
    }
    return false;
}

// Whether `lib`'s code is among the `depth` frames above the caller.
static bool called_from(int lib, int depth) {
#if defined(__GLIBC__)
    void *frames[12];
    int found = libs[lib].count == 0 ? 0 : backtrace(frames, depth < 12 ? depth : 12);
    for (int i = 1; i < found; i++) {
        if (in(lib, (uintptr_t)frames[i])) return true;
    }
#endif
    (void)lib, (void)depth;
    return false;
}

bool marbles_ip_from_foundation(uintptr_t caller) { return in(lib_foundation, caller); }
bool marbles_ip_from_executable(uintptr_t caller) { return in(lib_main, caller); }
bool marbles_ip_from_runtime(uintptr_t caller) { return in(lib_concurrency, caller) || in(lib_dispatch, caller); }
bool marbles_ip_from_concurrency(uintptr_t caller) { return in(lib_concurrency, caller); }
bool marbles_ip_called_from_networking(void) { return called_from(lib_networking, 6); }

// The definition ours stands in front of, found at the first call (another library's
// constructor may call in before ours ran): a sanitizer's interceptor (a weak definition in this
// executable, which ours replaced at link time: chained to, it keeps seeing the calls), else the
// next library's.
void *marbles_ip_find_next(void *_Atomic *slot, const char *name, const char *interceptor, void *ours) {
    void *candidate = dlsym(RTLD_DEFAULT, interceptor);
    if (candidate == NULL || candidate == ours) candidate = dlsym(RTLD_NEXT, name);
    atomic_store_explicit(slot, candidate == ours ? NULL : candidate, memory_order_release);
    return candidate == ours ? NULL : candidate;
}

static int real_clock_gettime(clockid_t id, struct timespec *tp) {
    clock_gettime_fn next = atomic_load_explicit(&next_clock_gettime, memory_order_acquire);
    // Before the constructor ran (another library's constructor): the kernel's.
    return next != NULL ? next(id, tp) : (int)syscall(SYS_clock_gettime, id, tp);
}

void marbles_ip_submit_untracked(void *queue, void *context, void (*work)(void *));

__attribute__((constructor)) static void resolve_next(void) {
    Dl_info next = {0};
    if (NEXT_OF(clock_gettime) == NULL || dladdr((void *)NEXT_OF(clock_gettime), &next) == 0) next.dli_fname = "";
    dl_iterate_phdr(note_library, NULL);
    marbles_register_submit(marbles_ip_submit_untracked);
    marbles_clock_interposer_register(
        next.dli_sname != NULL ? next.dli_sname : next.dli_fname != NULL ? next.dli_fname : "", real_clock_gettime);
}

// Which of a run's bases a clock reads (-1: none).
static int base_index(clockid_t id) { return id == CLOCK_REALTIME ? 0 : id == CLOCK_MONOTONIC ? 1 : id == CLOCK_BOOTTIME ? 2 : -1; }

// Which of `marbles_run.code_reads` a read from `caller` is (-1: none): the Swift runtime's,
// Foundation's dates, libdispatch's monotonic ones (`DispatchTime.now()`, a timer's deadline).
static int code_read(clockid_t id, uintptr_t caller) {
    int base = base_index(id);
    if (base < 0) return -1;
    if (base > 0 && in(lib_dispatch, caller)) return 3;
    // The executable's own code (SwiftNIO's `NIODeadline.now()`, the test's) reads the run's clocks.
    return in(lib_concurrency, caller) || (base == 0 && in(lib_foundation, caller)) || in(lib_main, caller) ? base : -1;
}

// Whether Swift Testing made this read (a timestamp). Unwinds only for CLOCK_MONOTONIC (`Task.sleep`
// reads the continuous clock: unwinding at every sleep made a sleep loop 3.4x slower), and only
// in the first reads of an instant: a busy wait pays for no unwinding.
static bool read_by_test_framework(const marbles_run *run, clockid_t id) {
    return id == CLOCK_MONOTONIC && run->spin_reads <= 64 && called_from(lib_testing, 12);
}

// Past this many reads of one clock at one virtual instant a job is taken to busy-wait for the
// clock to move, which it never does while the job runs: the reading then moves with real time.
enum { spin_limit = 1000000 };

static long long virtual_reading(marbles_run *run, clockid_t id, int source) {
    long long virtual_now = marbles_run_now(run);
    long long reading = marbles_run_bases(run)[base_index(id)] + virtual_now;
    if (run->spin_now_ns != virtual_now) {
        run->spin_now_ns = virtual_now;
        run->spin_reads = 0;
        run->spin_clock = -1;
        return reading;
    }
    if (run->spin_clock == source) return run->spin_virtual_ns + (marbles_real_ns(id) - run->spin_real_ns);
    if (++run->spin_reads < spin_limit || run->spin_clock != -1) return reading;
    run->spin_clock = source;
    run->spin_real_ns = marbles_real_ns(id);
    run->spin_virtual_ns = reading;
    run->spin_at_ns = virtual_now;
    run->spins += 1;
    return reading;
}

static int answer(struct timespec *tp, long long now) { return *tp = marbles_timespec_of(now), 0; }

int clock_gettime(clockid_t id, struct timespec *tp) {
    uintptr_t caller = CALLER;
    marbles_run *run = marbles_route_virtual();
    if (run != NULL) {
        int source = code_read(id, caller);
        if (source < 0) return real_clock_gettime(id, tp);
        long long now = virtual_reading(run, id, source);
        run->reads += 1;
        if (!read_by_test_framework(run, id)) run->code_reads[source] += 1;
        return answer(tp, now);
    }
    run = marbles_route_run();
    // Real clocks that could be virtual (MARBLES_PORTABLE=1): the code's reads are counted.
    if (run != NULL && run->count_real_reads) {
        int source = code_read(id, caller);
        if (source >= 0 && !read_by_test_framework(run, id)) run->code_reads[source] += 1;
    }
    // A member reads the instant being settled, Foundation's uptime included (`Thread.sleep`'s).
    marbles_members *member = run == NULL && marbles_running.members != NULL ? marbles_member() : NULL;
    int base = base_index(id);
    if (member != NULL && base >= 0 && (code_read(id, caller) >= 0 || in(lib_foundation, caller))) {
        return answer(tp, marbles_member_reading(member, base));
    }
    return real_clock_gettime(id, tp);
}

marbles_members *marbles_ip_members_for(uintptr_t caller) {
    marbles_members *members = marbles_members_here();
    return members != NULL && !marbles_ip_from_runtime(caller) ? members : NULL;
}

marbles_members *marbles_ip_timers_here(void) {
    marbles_members *driven = marbles_route_members();
    return driven != NULL && marbles_driving_virtually(driven) ? driven : marbles_member();
}

// The time left to `when` (libdispatch: uptime, or with bit 63 the clock that counts sleep;
// wall-clock deadlines stay real) on the run's clocks, where the calling thread stands.
bool marbles_ip_virtual_remaining(marbles_members *members, uint64_t when, long long *remaining) {
    if (members == NULL || when == UINT64_MAX || (when >> 62) == 1 || (when >> 62) == 3) return false;
    int which = (when >> 62) == 0 ? 1 : 2;
    long long now;
    if (marbles_driving_virtually(members)) now = marbles_run_reading(marbles_route_virtual(), which);
    else if (marbles_member() == members) now = marbles_member_reading(members, which);
    else return false;
    *remaining = (long long)(when & ~(1ULL << 63)) - now;
    return true;
}

#endif
