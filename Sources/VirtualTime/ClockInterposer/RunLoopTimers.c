// Run-loop timers (`Timer`, `RunLoop.add`, OpenCombine's `Timer.publish`, `RunLoop` as a Combine
// scheduler: CoreFoundation's `CFRunLoopAddTimer`) and `RunLoop.perform` on virtual time (Linux):
// nothing runs a run loop in a test, so the run stands in for it. docs/DESIGN.md, "Run-loop timers".
#include "InterposerShared.h"

#if defined(__linux__)
typedef const void *cf_type;
typedef void (*callout_fn)(void *timer, void *info);
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    const void *(*copy_description)(const void *info);
} timer_context;

// CoreFoundation's, not interposed: weak, bound at load (NULL without Foundation).
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

// `Date()` in seconds since 2001, virtual on the driving thread as Foundation's fire dates are.
static double absolute_now(void) {
    marbles_run *run = marbles_route_virtual();
    long long now = run != NULL ? marbles_run_reading(run, 0) : marbles_real_ns(CLOCK_REALTIME);
    return (double)(now / 1000000000LL - 978307200LL) + (double)(now % 1000000000LL) * 1e-9;
}

// Timers made on a driving thread, not yet added: their callouts, which CoreFoundation keeps to
// itself (the last `made_limit`: a timer made and never added drops out).
enum { made_limit = 64 };
static struct {
    void *timer, *info;
    callout_fn callout;
} made[made_limit];
static unsigned made_next;

typedef struct {
    marbles_shadow base;            // `object`: the timer, retained while listed
    void *info;
    callout_fn callout;
} shadowed;

static void release_timer(void *timer) { CFRelease(timer); }
static void dispose(marbles_shadow *shadow) { free(shadow); }

// The registry's lock also guards `made`.
static marbles_registry timers = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, release_timer, dispose};

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
    marbles_lock(&timers.lock, marbles_rank_list);
    made[made_next++ % made_limit] = (__typeof__(made[0])){timer, context != NULL ? context->info : NULL, callout};
    marbles_unlock(&timers.lock, marbles_rank_list);
    return timer;
}

// Under the lock: the callout recorded for `timer` (forgotten), or NULL (other info: a freed timer's).
static callout_fn take_made(void *timer, void *info) {
    for (unsigned back = 1; back <= made_limit; back++) {  // newest first
        unsigned i = (made_next - back) % made_limit;
        if (made[i].timer != timer) continue;
        callout_fn callout = made[i].info == info ? made[i].callout : NULL;
        made[i].timer = NULL;
        return callout;
    }
    return NULL;
}

static void woke(void *raw);

// How far apart two dates may be and still be one instant (half the microsecond `arm` rounds to).
static const double date_slack = 0.5e-6;

// Arms a wake-up at the timer's fire date, `now` being the virtual date.
static void arm(marbles_locked *locked, shadowed *it, double now) {
    // To the microsecond (a date is exact to about 0.12 µs): `Date() + 0.3` is 0.3 s, not 0.299999952.
    double remaining = CFRunLoopTimerGetNextFireDate(it->base.object) - now;
    marbles_registry_arm(locked, &it->base, remaining <= 0 ? 0 : (long long)(remaining * 1e6 + 0.5) * 1000, woke);
}

// A wake-up on virtual time, on the driving thread: the callout, as the run loop would call it.
static void woke(void *raw) {
    unsigned long generation;
    shadowed *it = (shadowed *)marbles_registry_woken(raw, &generation);
    double now = absolute_now();
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers);
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
    marbles_registry_lock(&locked, &timers);
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

#define LEFT "%s is left to its run loop, which nothing runs in a test"

void CFRunLoopAddTimer(cf_type run_loop, void *timer, cf_type mode) {
    CFRunLoopAddTimer_fn next = NEXT_OF(CFRunLoopAddTimer);
    marbles_members *members = marbles_ip_members_for(CALLER);
    if (members == NULL) return next(run_loop, timer, mode);
    if (!marbles_driving_virtually(members)) {
        marbles_members_note_escape(members, "a run-loop timer", LEFT, elsewhere(members));
        return next(run_loop, timer, mode);
    }
    timer_context context = {0};
    CFRunLoopTimerGetContext(timer, &context);
    double now = absolute_now();
    marbles_locked locked;
    marbles_registry_lock(&locked, &timers);
    if (marbles_registry_find(&timers, timer) != NULL) {
        // Already shadowed (added in another mode too).
        return marbles_registry_unlock(&locked);
    }
    char place[160];
    const char *left = why_left(run_loop, mode, place, sizeof place);
    callout_fn callout = left == NULL ? take_made(timer, context.info) : NULL;
    if (callout == NULL) {
        marbles_registry_unlock(&locked);
        marbles_members_note_escape(members, "a run-loop timer", LEFT, left != NULL ? left : "made before the run or on another thread,");
        return next(run_loop, timer, mode);
    }
    shadowed *it = marbles_allocate(sizeof(shadowed));
    CFRetain(timer);
    *it = (shadowed){.base = {.object = timer, .members = members}, .info = context.info, .callout = callout};
    marbles_registry_add(&locked, &it->base);
    arm(&locked, it, now);
    marbles_registry_unlock(&locked);
}

// Takes a shadowed timer off the list (removed or invalidated); false when it was not shadowed.
static bool unshadow(void *timer) {
    marbles_locked locked;
    marbles_shadow *it = marbles_registry_open(&locked, &timers, timer);
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
    shadowed *it = (shadowed *)marbles_registry_open(&locked, &timers, timer);
    if (it != NULL && it->base.members == here) {
        it->base.generation += 1;
        arm(&locked, it, now);
    }
    marbles_registry_unlock(&locked);
}

// `RunLoop.perform(_:)`: the block runs in the scheduler's loop at the current instant.
void CFRunLoopPerformBlock(cf_type run_loop, cf_type modes, void *block) {
    CFRunLoopPerformBlock_fn next = NEXT_OF(CFRunLoopPerformBlock);
    marbles_members *members = marbles_ip_members_for(CALLER);
    if (members == NULL || block == NULL) return next(run_loop, modes, block);
    char place[160];
    const char *left = marbles_driving_virtually(members) ? why_left(run_loop, modes, place, sizeof place) : elsewhere(members);
    void *copy = left == NULL ? marbles_copy_block(block) : NULL;
    if (copy == NULL) {
        marbles_members_note_escape(members, "a block performed on a run loop", LEFT, left != NULL ? left : "");
        return next(run_loop, modes, block);
    }
    marbles_members_hand(members, 0, NULL, copy, marbles_invoke_block);
}
#endif
