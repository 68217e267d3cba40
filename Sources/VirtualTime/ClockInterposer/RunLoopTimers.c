// Run-loop timers (`Timer`, `RunLoop.add`, OpenCombine's `Timer.publish`, `RunLoop` as a Combine
// scheduler: CoreFoundation's `CFRunLoopAddTimer`) and `RunLoop.perform` on virtual time (Linux):
// nothing runs a run loop in a test, so the run stands in for it. docs/DESIGN.md, "Run-loop timers".
#define _GNU_SOURCE
#include "InterposerShared.h"

#if defined(__linux__)
#include <stdio.h>
#include <stdlib.h>

typedef const void *cf_type;
typedef void (*callout_fn)(void *timer, void *info);
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    const void *(*copy_description)(const void *info);
} timer_context;

// CoreFoundation's, which this file calls without interposing them: weak, bound at load (NULL in
// a process without Foundation).
#define CF(result, name, ...) extern __attribute__((weak)) result name(__VA_ARGS__)
CF(cf_type, CFRunLoopGetCurrent, void);
CF(cf_type, CFRunLoopGetMain, void);
CF(bool, CFEqual, cf_type, cf_type);
CF(cf_type, CFRetain, cf_type);
CF(void, CFRelease, cf_type);
CF(double, CFRunLoopTimerGetNextFireDate, cf_type);
CF(double, CFRunLoopTimerGetInterval, cf_type);
CF(bool, CFRunLoopTimerIsValid, cf_type);
CF(void, CFRunLoopTimerGetContext, cf_type, timer_context *);
CF(unsigned long, CFGetTypeID, cf_type);
CF(unsigned long, CFArrayGetTypeID, void);
CF(long, CFArrayGetCount, cf_type);
CF(cf_type, CFArrayGetValueAtIndex, cf_type, long);
CF(bool, CFStringGetCString, cf_type, char *, long, uint32_t);
extern __attribute__((weak)) cf_type kCFRunLoopDefaultMode, kCFRunLoopCommonModes;

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

static bool have_cf(void) { return CFRunLoopGetCurrent != NULL; }

// A timer made on a driving thread, not yet added: its callout, which CoreFoundation keeps to
// itself. At most `made_limit` are kept (the oldest go: a timer made and never added).
typedef struct made {
    struct made *next;
    void *timer;
    void *info;
    callout_fn callout;
} made;

typedef struct {
    marbles_shadow base;            // `object`: the timer, retained while listed
    void *info;
    callout_fn callout;
} shadowed;

static void release_timer(void *timer) { CFRelease(timer); }
static void dispose(marbles_shadow *shadow) { free(shadow); }

enum { made_limit = 64 };
// The registry's lock also guards the made list.
static marbles_registry timers = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, release_timer, dispose};
static made *made_list;
static int made_count;

INTERPOSED(void *, CFRunLoopTimerCreate, cf_type allocator, double fire_date, double interval, unsigned long flags, long order, callout_fn callout,
    timer_context *context);
INTERPOSED(void, CFRunLoopAddTimer, cf_type run_loop, void *timer, cf_type mode);
INTERPOSED(void, CFRunLoopRemoveTimer, cf_type run_loop, void *timer, cf_type mode);
INTERPOSED(void, CFRunLoopTimerInvalidate, void *timer);
INTERPOSED(void, CFRunLoopTimerSetNextFireDate, void *timer, double fire_date);
INTERPOSED(void, CFRunLoopPerformBlock, cf_type run_loop, cf_type modes, void *block);

void *CFRunLoopTimerCreate(cf_type allocator, double fire_date, double interval, unsigned long flags, long order, callout_fn callout, timer_context *context) {
    void *timer = NEXT_OF(CFRunLoopTimerCreate)(allocator, fire_date, interval, flags, order, callout, context);
    if (timer == NULL || callout == NULL || marbles_route_virtual() == NULL) return timer;
    made *it = malloc(sizeof(made));
    if (it == NULL) abort();
    *it = (made){NULL, timer, context != NULL ? context->info : NULL, callout};
    marbles_lock(&timers.lock, marbles_rank_list);
    it->next = made_list;
    made_list = it;
    if (++made_count > made_limit) {
        made **link = &made_list;
        while ((*link)->next != NULL) link = &(*link)->next;
        free(*link);
        *link = NULL;
        made_count -= 1;
    }
    marbles_unlock(&timers.lock, marbles_rank_list);
    return timer;
}

// Under the lock: the callout recorded for `timer` (and forgets it), or NULL. A record whose
// info differs is a freed timer's whose address came back.
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

static void woke(void *raw);

// How far apart two dates may be and still be one instant (half the microsecond `arm` rounds to).
static const double date_slack = 0.5e-6;

// Arms a wake-up at the timer's fire date, `now` being the virtual date.
static void arm(marbles_locked *locked, shadowed *it, double now) {
    // To the microsecond: a date as a double since 2001 is exact only to about 0.12 µs, so that
    // `Date() + 0.3` comes out 0.3 s later, not 0.299999952 s.
    double remaining = CFRunLoopTimerGetNextFireDate(it->base.object) - now;
    marbles_registry_arm(locked, &it->base, remaining <= 0 ? 0 : (long long)(remaining * 1e6 + 0.5) * 1000, woke);
}

// A wake-up on virtual time, on the driving thread: the callout, as the run loop would call it.
static void woke(void *raw) {
    unsigned long generation;
    shadowed *it = (shadowed *)marbles_registry_woken(raw, &generation);
    double now = absolute_now();
    long long virtual_now = marbles_members_now(it->base.members);
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers, virtual_now);
    void *timer = it->base.object;
    bool live = it->base.generation == generation && CFRunLoopTimerIsValid(timer);
    double fire_date = live ? CFRunLoopTimerGetNextFireDate(timer) : 0;
    if (live && fire_date > now + date_slack) {
        // Its fire date moved later since this wake-up was armed.
        arm(&locked, it, now);
        live = false;
    }
    if (live) CFRetain(timer);
    marbles_registry_unlock(&locked);
    if (live) it->callout(timer, it->info);
    bool ended = false;
    marbles_registry_lock(&locked, &timers, virtual_now);
    // Unless the callout invalidated the timer or gave it a new fire date (both bump the generation).
    if (live && it->base.generation == generation) {
        double interval = CFRunLoopTimerGetInterval(timer);
        if (interval > 0) {
            double next = fire_date + interval;
            if (next <= now + date_slack) next += interval * (1 + (long long)((now + date_slack - next) / interval));
            NEXT_OF(CFRunLoopTimerSetNextFireDate)(timer, next);
            arm(&locked, it, now);
        } else {
            ended = true;
            marbles_registry_remove(&locked, &it->base);
        }
    }
    marbles_registry_drop(&locked, &it->base);
    marbles_registry_unlock(&locked);
    if (ended) NEXT_OF(CFRunLoopTimerInvalidate)(timer);
    if (live) CFRelease(timer);
}

// Whether `modes` (a mode, or an array of them) holds the default or the common modes.
static bool driven_mode(cf_type modes) {
    if (modes == NULL) return false;
    if (CFGetTypeID(modes) == CFArrayGetTypeID()) {
        for (long i = 0; i < CFArrayGetCount(modes); i++) {
            if (driven_mode(CFArrayGetValueAtIndex(modes, i))) return true;
        }
        return false;
    }
    return CFEqual(modes, kCFRunLoopDefaultMode) || CFEqual(modes, kCFRunLoopCommonModes);
}

// Why a run loop's work added on this thread is not shadowed, into `place` (NULL: it is).
static const char *why_left(cf_type run_loop, cf_type modes, char *place, size_t size) {
    bool main = run_loop == CFRunLoopGetMain();
    if (run_loop != CFRunLoopGetCurrent() && !main) return snprintf(place, size, "on another thread's run loop"), place;
    if (main && run_loop != CFRunLoopGetCurrent() && !marbles_route_virtual()->main_in_loop) {
        return snprintf(place, size, "on RunLoop.main, in a test that is not on the main actor,"), place;
    }
    if (!driven_mode(modes)) {
        char name[96] = "?";
        if (modes != NULL && CFGetTypeID(modes) != CFArrayGetTypeID()) CFStringGetCString(modes, name, sizeof name, 0x08000100);
        return snprintf(place, size, "in run-loop mode '%s'", name), place;
    }
    return NULL;
}

// Why work for a run loop off a driving thread with virtual clocks is not shadowed.
static const char *elsewhere(marbles_members *members) {
    return marbles_driving(members) ? "added while the run's clocks are real (MARBLES_PORTABLE=1, as on Apple platforms),"
                                    : "added on another thread,";
}

// Notes a run loop's work that stays with its run loop inside a run.
static void note_left(marbles_members *members, const char *what, const char *place) {
    char text[160];
    snprintf(text, sizeof text, "%s is left to its run loop, which nothing runs in a test", place);
    marbles_members_note_escape(members, what, text);
}

void CFRunLoopAddTimer(cf_type run_loop, void *timer, cf_type mode) {
    CFRunLoopAddTimer_fn next = NEXT_OF(CFRunLoopAddTimer);
    marbles_members *members = marbles_ip_members_for((uintptr_t)__builtin_return_address(0));
    if (members == NULL || !have_cf()) return next(run_loop, timer, mode);
    if (!marbles_driving_virtually(members)) {
        note_left(members, "a run-loop timer", elsewhere(members));
        return next(run_loop, timer, mode);
    }
    timer_context context = {0};
    CFRunLoopTimerGetContext(timer, &context);
    double now = absolute_now();
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers, marbles_members_now(members));
    if (marbles_registry_find(&timers, timer) != NULL) {
        // Already shadowed (added in another mode too).
        return marbles_registry_unlock(&locked);
    }
    char place[160];
    const char *left = why_left(run_loop, mode, place, sizeof place);
    callout_fn callout = left == NULL ? take_made(timer, context.info) : NULL;
    if (callout == NULL) {
        marbles_registry_unlock(&locked);
        note_left(members, "a run-loop timer", left != NULL ? left : "made before the run or on another thread,");
        return next(run_loop, timer, mode);
    }
    shadowed *it = calloc(1, sizeof(shadowed));
    if (it == NULL) abort();
    CFRetain(timer);
    *it = (shadowed){.base = {.object = timer, .members = members}, .info = context.info, .callout = callout};
    marbles_registry_add(&locked, &it->base);
    arm(&locked, it, now);
    marbles_registry_unlock(&locked);
}

// Takes a shadowed timer off the list (removed or invalidated); false when it was not shadowed.
static bool unshadow(void *timer) {
    if (marbles_registry_empty(&timers)) return false;
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers, 0);
    marbles_shadow *it = marbles_registry_find(&timers, timer);
    if (it != NULL) marbles_registry_remove(&locked, it);
    marbles_registry_unlock(&locked);
    return it != NULL;
}

void CFRunLoopRemoveTimer(cf_type run_loop, void *timer, cf_type mode) {
    if (!unshadow(timer)) NEXT_OF(CFRunLoopRemoveTimer)(run_loop, timer, mode);
}

void CFRunLoopTimerInvalidate(void *timer) {
    // Invalid first: a wake-up already under way sees it.
    NEXT_OF(CFRunLoopTimerInvalidate)(timer);
    unshadow(timer);
}

void CFRunLoopTimerSetNextFireDate(void *timer, double fire_date) {
    NEXT_OF(CFRunLoopTimerSetNextFireDate)(timer, fire_date);
    marbles_members *here = marbles_registry_empty(&timers) ? NULL : marbles_route_members();
    // Set from another thread, the wake-up already armed finds the new date when it comes.
    if (here == NULL || !marbles_driving_virtually(here)) return;
    double now = absolute_now();
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers, marbles_members_now(here));
    shadowed *it = (shadowed *)marbles_registry_find(&timers, timer);
    if (it != NULL && it->base.members == here) {
        it->base.generation += 1;
        arm(&locked, it, now);
    }
    marbles_registry_unlock(&locked);
}

// `RunLoop.perform(_:)`: the block runs in the scheduler's loop at the current instant.
void CFRunLoopPerformBlock(cf_type run_loop, cf_type modes, void *block) {
    CFRunLoopPerformBlock_fn next = NEXT_OF(CFRunLoopPerformBlock);
    marbles_members *members = marbles_ip_members_for((uintptr_t)__builtin_return_address(0));
    if (members == NULL || block == NULL || !have_cf()) return next(run_loop, modes, block);
    char place[160];
    const char *left = marbles_driving_virtually(members) ? why_left(run_loop, modes, place, sizeof place) : elsewhere(members);
    void *copy = left == NULL ? marbles_copy_block(block) : NULL;
    if (copy == NULL) {
        note_left(members, "a block performed on a run loop", left != NULL ? left : "");
        return next(run_loop, modes, block);
    }
    marbles_members_hand(members, marbles_members_now(members), 0, NULL, copy, marbles_invoke_block);
}
#endif
