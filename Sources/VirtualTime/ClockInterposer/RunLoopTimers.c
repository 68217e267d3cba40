// Run-loop timers on virtual time (Linux): `Timer.scheduledTimer`, `RunLoop.add(_:forMode:)`,
// `Timer.publish` (OpenCombine's, which adds a Timer) and `RunLoop` as a Combine scheduler, all
// of which reach CoreFoundation's `CFRunLoopAddTimer`; and `RunLoop.perform(_:)`
// (`CFRunLoopPerformBlock`).
//
// In a test nothing runs a run loop: on Linux Swift Testing runs a `@MainActor` test on a thread
// that drains the main queue, and the main thread's run loop never turns. A timer added on a
// driving thread whose clocks are virtual, to a run loop the run stands in for (the driving
// thread's own, or `RunLoop.main` in a test on the main actor), in the default or the common
// modes, is therefore shadowed here instead of added: it becomes a wake-up on virtual time at
// its fire date, and at that instant its callout runs in the scheduler's loop, on the driving
// thread, as the run loop would run it. A repeating timer then moves to its next fire date
// (fire date plus interval, as CoreFoundation does); a one-shot timer is invalidated after its
// callout. `invalidate()` and a new `fireDate` take effect at once. Tolerance only permits
// lateness, so the timer fires at its fire date exactly.
//
// The callout comes from `CFRunLoopTimerCreate` (interposed while a thread drives). Anything
// else is added to its run loop as usual and noted as an escape, which the run names in its
// failures: a timer made before the run or on another thread, another thread's run loop,
// `RunLoop.main` in a test off the main actor, any other mode.
#define _GNU_SOURCE
#include "CClockInterposer.h"
#include "CRuntimeHooks.h"
#include "InterposerShared.h"

#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef const void *cf_type;
typedef void (*callout_fn)(void *timer, void *info);
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    const void *(*copy_description)(const void *info);
} timer_context;

// CoreFoundation's functions this file calls without interposing them (found once).
static struct {
    cf_type (*current)(void);
    cf_type (*main)(void);
    bool (*equal)(cf_type, cf_type);
    cf_type (*retain)(cf_type);
    void (*release)(cf_type);
    double (*next_fire_date)(cf_type);
    double (*interval)(cf_type);
    bool (*is_valid)(cf_type);
    void (*get_context)(cf_type, timer_context *);
    unsigned long (*type_id)(cf_type);
    unsigned long (*array_type_id)(void);
    long (*array_count)(cf_type);
    cf_type (*array_value)(cf_type, long);
    bool (*string_c)(cf_type, char *, long, uint32_t);
    cf_type *default_mode;
    cf_type *common_modes;
} cf;
static pthread_once_t cf_once = PTHREAD_ONCE_INIT;
static bool cf_found;

static void find_cf(void) {
#define FIND(field, name) *(void **)&cf.field = dlsym(RTLD_DEFAULT, name)
    FIND(current, "CFRunLoopGetCurrent");
    FIND(main, "CFRunLoopGetMain");
    FIND(equal, "CFEqual");
    FIND(retain, "CFRetain");
    FIND(release, "CFRelease");
    FIND(next_fire_date, "CFRunLoopTimerGetNextFireDate");
    FIND(interval, "CFRunLoopTimerGetInterval");
    FIND(is_valid, "CFRunLoopTimerIsValid");
    FIND(get_context, "CFRunLoopTimerGetContext");
    FIND(type_id, "CFGetTypeID");
    FIND(array_type_id, "CFArrayGetTypeID");
    FIND(array_count, "CFArrayGetCount");
    FIND(array_value, "CFArrayGetValueAtIndex");
    FIND(string_c, "CFStringGetCString");
    FIND(default_mode, "kCFRunLoopDefaultMode");
    FIND(common_modes, "kCFRunLoopCommonModes");
#undef FIND
    void **all = (void **)&cf;
    cf_found = true;
    for (size_t i = 0; i < sizeof cf / sizeof(void *); i++) cf_found = cf_found && all[i] != NULL;
}

// `Date()` as CoreFoundation counts it (seconds since 2001), virtual on the driving thread, as
// the fire dates Foundation computes are (CFAbsoluteTimeGetCurrent reads the real clock).
static double absolute_now(void) {
    long long now = 0;
    if (!marbles_ip_virtual_date_ns(&now)) {
        struct timespec real;
        clock_gettime(CLOCK_REALTIME, &real);
        now = (long long)real.tv_sec * 1000000000LL + real.tv_nsec;
    }
    return (double)(now / 1000000000LL - 978307200LL) + (double)(now % 1000000000LL) * 1e-9;
}

static bool have_cf(void) {
    pthread_once(&cf_once, find_cf);
    return cf_found;
}

// A timer made on a driving thread, not yet added: its callout, which CoreFoundation keeps to
// itself. At most `made_limit` are kept (the oldest go: a timer made and never added).
typedef struct made {
    struct made *next;
    void *timer;
    void *info;
    callout_fn callout;
} made;

typedef struct shadow {
    struct shadow *next;
    void *timer;                    // retained while listed
    void *info;
    callout_fn callout;
    marbles_foreign *foreign;
    unsigned long generation;       // a new fire date or an invalidation leaves older wake-ups stale
    long references;                // the list's, and each wake-up's
} shadow;

typedef struct {
    shadow *shadow;
    unsigned long generation;
} wake;

enum { made_limit = 64 };
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static made *made_list;
static int made_count;
static shadow *shadows;
static _Atomic long listed_count;

static bool none_listed(void) { return atomic_load_explicit(&listed_count, memory_order_acquire) == 0; }

typedef void *(*timer_create_fn)(cf_type, double, double, unsigned long, long, callout_fn, timer_context *);
typedef void (*add_timer_fn)(cf_type, void *, cf_type);
typedef void (*timer_fn)(void *);
typedef void (*set_date_fn)(void *, double);
typedef void (*perform_fn)(cf_type, cf_type, void *);
static _Atomic(timer_create_fn) next_timer_create;
static _Atomic(add_timer_fn) next_add_timer;
static _Atomic(add_timer_fn) next_remove_timer;
static _Atomic(timer_fn) next_invalidate;
static _Atomic(set_date_fn) next_set_date;
static _Atomic(perform_fn) next_perform;

void *CFRunLoopTimerCreate(cf_type allocator, double fire_date, double interval, unsigned long flags, long order, callout_fn callout, timer_context *context);
void CFRunLoopAddTimer(cf_type run_loop, void *timer, cf_type mode);
void CFRunLoopRemoveTimer(cf_type run_loop, void *timer, cf_type mode);
void CFRunLoopTimerInvalidate(void *timer);
void CFRunLoopTimerSetNextFireDate(void *timer, double fire_date);
void CFRunLoopPerformBlock(cf_type run_loop, cf_type modes, void *block);

// Whether the calling thread drives a scheduler whose clocks are virtual.
static bool driving_virtually(void) {
    marbles_foreign *foreign = marbles_route_foreign();
    return marbles_route_clocks() != NULL && foreign != NULL && marbles_foreign_timer(foreign) != NULL;
}

void *CFRunLoopTimerCreate(cf_type allocator, double fire_date, double interval, unsigned long flags, long order, callout_fn callout, timer_context *context) {
    timer_create_fn next = NEXT(next_timer_create, timer_create_fn, "CFRunLoopTimerCreate", CFRunLoopTimerCreate);
    void *timer = next(allocator, fire_date, interval, flags, order, callout, context);
    if (timer == NULL || callout == NULL || marbles_route_clocks() == NULL) return timer;
    made *it = malloc(sizeof(made));
    if (it == NULL) abort();
    *it = (made){NULL, timer, context != NULL ? context->info : NULL, callout};
    pthread_mutex_lock(&lock);
    it->next = made_list;
    made_list = it;
    if (++made_count > made_limit) {
        made **link = &made_list;
        while ((*link)->next != NULL) link = &(*link)->next;
        free(*link);
        *link = NULL;
        made_count -= 1;
    }
    pthread_mutex_unlock(&lock);
    return timer;
}

// Called with `lock` held: the callout recorded for `timer` (and forgets it), or NULL. A record
// whose info differs is a freed timer's whose address came back.
static callout_fn take_made(void *timer, void *info) {
    for (made **link = &made_list; *link != NULL; link = &(*link)->next) {
        made *it = *link;
        if (it->timer != timer) continue;
        callout_fn callout = it->info == info ? it->callout : NULL;
        *link = it->next;
        free(it);
        made_count -= 1;
        return callout;
    }
    return NULL;
}

// Called with `lock` held.
static shadow *find(void *timer) {
    for (shadow *it = shadows; it != NULL; it = it->next) {
        if (it->timer == timer) return it;
    }
    return NULL;
}

// Called with `lock` held; frees the shadow with its last reference.
static void drop(shadow *it) {
    if (--it->references > 0) return;
    marbles_foreign_unhold(it->foreign);
    free(it);
}

// Called with `lock` held: takes the shadow off the list; returns the timer, for the caller to
// release once the lock is dropped (a last release frees the Timer, whose deinit may call back).
static void *unlist(shadow *it) {
    marbles_ip_unlink((void **)&shadows, it);
    it->generation += 1;
    void *timer = it->timer;
    atomic_fetch_sub_explicit(&listed_count, 1, memory_order_release);
    drop(it);
    return timer;
}

static void woke(void *raw);

// How far apart two dates may be and still be one instant (half the microsecond `arm` rounds to).
static const double date_slack = 0.5e-6;

// Arms a wake-up at the timer's fire date (on the driving thread). Called with `lock` held.
static void arm(shadow *it) {
    wake *next = malloc(sizeof(wake));
    if (next == NULL) abort();
    *next = (wake){it, it->generation};
    it->references += 1;
    // To the microsecond: a date as a double since 2001 is exact only to about 0.12 µs, so that
    // `Date() + 0.3` comes out 0.3 s later, not 0.299999952 s.
    double remaining = cf.next_fire_date(it->timer) - absolute_now();
    long long nanoseconds = remaining <= 0 ? 0 : (long long)(remaining * 1e6 + 0.5) * 1000;
    marbles_ip_hand_to_timer(it->foreign, NULL, nanoseconds, next, woke);
}

// A wake-up on virtual time, on the driving thread: the callout, as the run loop would call it.
static void woke(void *raw) {
    wake *due = raw;
    shadow *it = due->shadow;
    unsigned long generation = due->generation;
    free(due);
    pthread_mutex_lock(&lock);
    bool live = it->generation == generation && cf.is_valid(it->timer);
    double fire_date = live ? cf.next_fire_date(it->timer) : 0;
    if (live && fire_date > absolute_now() + date_slack) {
        // Its fire date moved later since this wake-up was armed.
        arm(it);
        live = false;
    }
    void *timer = it->timer;
    callout_fn callout = it->callout;
    void *info = it->info;
    if (live) cf.retain(timer);
    pthread_mutex_unlock(&lock);
    if (live) callout(timer, info);
    void *released = NULL;
    pthread_mutex_lock(&lock);
    // Unless the callout invalidated the timer or gave it a new fire date (both bump the generation).
    if (live && it->generation == generation) {
        double interval = cf.interval(timer);
        if (interval > 0) {
            double now = absolute_now();
            double next = fire_date + interval;
            if (next <= now + date_slack) next += interval * (1 + (long long)((now + date_slack - next) / interval));
            NEXT(next_set_date, set_date_fn, "CFRunLoopTimerSetNextFireDate", CFRunLoopTimerSetNextFireDate)(timer, next);
            arm(it);
        } else {
            released = unlist(it);
        }
    }
    drop(it);
    pthread_mutex_unlock(&lock);
    if (released != NULL) {
        NEXT(next_invalidate, timer_fn, "CFRunLoopTimerInvalidate", CFRunLoopTimerInvalidate)(released);
        cf.release(released);
    }
    if (live) cf.release(timer);
}

// Whether `modes` (a mode, or an array of them) holds the default or the common modes.
static bool driven_mode(cf_type modes) {
    if (modes == NULL) return false;
    if (cf.type_id(modes) == cf.array_type_id()) {
        for (long i = 0; i < cf.array_count(modes); i++) {
            if (driven_mode(cf.array_value(modes, i))) return true;
        }
        return false;
    }
    return cf.equal(modes, *cf.default_mode) || cf.equal(modes, *cf.common_modes);
}

// Why a run loop's work added on this thread is not shadowed, into `place` (NULL: it is).
static const char *why_left(cf_type run_loop, cf_type modes, char *place, size_t size) {
    bool main = run_loop == cf.main();
    if (run_loop != cf.current() && !main) return snprintf(place, size, "on another thread's run loop"), place;
    if (main && run_loop != cf.current() && !marbles_route_clocks()->main_in_loop) {
        return snprintf(place, size, "on RunLoop.main, in a test that is not on the main actor,"), place;
    }
    if (!driven_mode(modes)) {
        char name[96] = "?";
        if (modes != NULL && cf.type_id(modes) != cf.array_type_id()) cf.string_c(modes, name, sizeof name, 0x08000100);
        return snprintf(place, size, "in run-loop mode '%s'", name), place;
    }
    return NULL;
}

// Notes a run loop's work that stays with its run loop inside a run.
static void note_left(marbles_foreign *foreign, const char *what, const char *place) {
    char text[160];
    snprintf(text, sizeof text, "%s is left to its run loop, which nothing runs in a test", place);
    marbles_foreign_note_escape_in(foreign, what, text);
}

void CFRunLoopAddTimer(cf_type run_loop, void *timer, cf_type mode) {
    add_timer_fn next = NEXT(next_add_timer, add_timer_fn, "CFRunLoopAddTimer", CFRunLoopAddTimer);
    marbles_foreign *foreign = marbles_ip_tracker_for((uintptr_t)__builtin_return_address(0));
    if (foreign == NULL || !have_cf()) return next(run_loop, timer, mode);
    if (!driving_virtually() || marbles_route_foreign() != foreign) {
        note_left(foreign, "a run-loop timer", "added on another thread,");
        return next(run_loop, timer, mode);
    }
    timer_context context = {0};
    cf.get_context(timer, &context);
    pthread_mutex_lock(&lock);
    if (find(timer) != NULL) {
        // Already shadowed (added in another mode too).
        pthread_mutex_unlock(&lock);
        return;
    }
    char place[160];
    const char *left = why_left(run_loop, mode, place, sizeof place);
    callout_fn callout = left == NULL ? take_made(timer, context.info) : NULL;
    if (callout == NULL) {
        pthread_mutex_unlock(&lock);
        note_left(foreign, "a run-loop timer", left != NULL ? left : "made before the run or on another thread,");
        return next(run_loop, timer, mode);
    }
    shadow *it = calloc(1, sizeof(shadow));
    if (it == NULL) abort();
    cf.retain(timer);
    marbles_foreign_hold(foreign);
    *it = (shadow){.timer = timer, .info = context.info, .callout = callout, .foreign = foreign, .references = 1};
    it->next = shadows;
    shadows = it;
    atomic_fetch_add_explicit(&listed_count, 1, memory_order_release);
    arm(it);
    pthread_mutex_unlock(&lock);
}

// Takes a shadowed timer off the list (removed or invalidated); false when it was not shadowed.
static bool unshadow(void *timer) {
    if (none_listed()) return false;
    pthread_mutex_lock(&lock);
    shadow *it = find(timer);
    void *listed = it != NULL ? unlist(it) : NULL;
    pthread_mutex_unlock(&lock);
    if (listed != NULL) cf.release(listed);
    return listed != NULL;
}

void CFRunLoopRemoveTimer(cf_type run_loop, void *timer, cf_type mode) {
    add_timer_fn next = NEXT(next_remove_timer, add_timer_fn, "CFRunLoopRemoveTimer", CFRunLoopRemoveTimer);
    if (!unshadow(timer)) next(run_loop, timer, mode);
}

void CFRunLoopTimerInvalidate(void *timer) {
    timer_fn next = NEXT(next_invalidate, timer_fn, "CFRunLoopTimerInvalidate", CFRunLoopTimerInvalidate);
    // Invalid first: a wake-up already under way sees it.
    next(timer);
    unshadow(timer);
}

void CFRunLoopTimerSetNextFireDate(void *timer, double fire_date) {
    set_date_fn next = NEXT(next_set_date, set_date_fn, "CFRunLoopTimerSetNextFireDate", CFRunLoopTimerSetNextFireDate);
    next(timer, fire_date);
    if (none_listed()) return;
    pthread_mutex_lock(&lock);
    shadow *it = find(timer);
    if (it != NULL && marbles_route_foreign() == it->foreign && driving_virtually()) {
        it->generation += 1;
        arm(it);
    }
    // Set from another thread, the wake-up already armed finds the new date when it comes.
    pthread_mutex_unlock(&lock);
}

// `RunLoop.perform(_:)`: the block runs in the scheduler's loop at the current instant.
void CFRunLoopPerformBlock(cf_type run_loop, cf_type modes, void *block) {
    perform_fn next = NEXT(next_perform, perform_fn, "CFRunLoopPerformBlock", CFRunLoopPerformBlock);
    marbles_foreign *foreign = marbles_ip_tracker_for((uintptr_t)__builtin_return_address(0));
    if (foreign == NULL || block == NULL || !have_cf()) return next(run_loop, modes, block);
    char place[160];
    const char *left = driving_virtually() && marbles_route_foreign() == foreign ? why_left(run_loop, modes, place, sizeof place)
                                                                                : "added on another thread,";
    void *copy = left == NULL ? marbles_foreign_copy_block(block) : NULL;
    if (copy == NULL) {
        note_left(foreign, "a block performed on a run loop", left != NULL ? left : "");
        return next(run_loop, modes, block);
    }
    marbles_ip_hand_to_timer(foreign, NULL, 0, copy, marbles_foreign_invoke_block);
}
#endif
