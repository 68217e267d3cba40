// Dispatch timer sources on virtual time (Linux): `DispatchSource.makeTimerSource`, what
// OpenCombine's and Combine's `DispatchQueue` scheduler arms for `debounce` and repeating work.
//
// A timer source made on a driving thread whose clocks are virtual is shadowed here: its
// schedule (`dispatch_source_set_timer`) goes to the test scheduler as a wake-up on virtual time,
// and libdispatch's own timer is set to never fire. At each wake-up (on the driving thread) the
// source's handler goes to its queue as tracked work, or runs in the scheduler's loop for the
// main queue in a test on the main actor; a repeating source arms its next wake-up. Suspending
// holds deliveries back (one is delivered on resume, its data the count missed, as libdispatch
// coalesces them); cancelling or a new schedule makes the wake-ups already armed do nothing.
//
// Not shadowed (they keep libdispatch's real timer): sources made elsewhere (on other threads,
// before the run), wall-clock deadlines, and a schedule set off the driving thread; the first
// such schedule inside a run is noted as an escape, which the run names in its failures.
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
#include <stdlib.h>

typedef struct shadow {
    struct shadow *next;
    void *source;
    void *queue;
    marbles_foreign *foreign;
    void *handler;                  // a copied block, or NULL
    void *handler_context;          // the `_f` form's
    void (*handler_function)(void *);
    uint64_t interval_ns;           // UINT64_MAX: one-shot
    long suspended;                 // 1 while inactive, as made
    bool cancelled;
    bool scheduled;
    unsigned long generation;       // a new schedule or a cancel leaves older wake-ups stale
    unsigned long missed;           // fires while suspended, delivered on resume
    unsigned long data;             // what `dispatch_source_get_data` answers in the handler
    long references;                // the list's, and each wake-up's and delivery's
} shadow;

typedef struct {
    shadow *shadow;
    unsigned long generation;
} wake;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static shadow *shadows;
// How many shadows are listed: every `dispatch_resume` of the process comes through here, and
// while none is (most of the time) it passes on without the lock.
static _Atomic long listed_count;

static bool none_listed(void) { return atomic_load_explicit(&listed_count, memory_order_acquire) == 0; }

typedef void *(*source_create_fn)(const void *type, uintptr_t handle, uintptr_t mask, void *queue);
typedef void (*set_timer_fn)(void *source, uint64_t start, uint64_t interval, uint64_t leeway);
typedef void (*set_handler_fn)(void *source, void *handler);
typedef void (*set_handler_f_fn)(void *source, void (*handler)(void *));
typedef void (*object_fn)(void *object);
typedef uintptr_t (*get_data_fn)(void *source);
typedef void (*set_context_fn)(void *object, void *context);
static _Atomic(source_create_fn) next_source_create;
static _Atomic(set_timer_fn) next_set_timer;
static _Atomic(set_handler_fn) next_set_handler;
static _Atomic(set_handler_f_fn) next_set_handler_f;
static _Atomic(object_fn) next_resume;
static _Atomic(object_fn) next_suspend;
static _Atomic(object_fn) next_activate;
static _Atomic(object_fn) next_cancel;
static _Atomic(get_data_fn) next_get_data;
static _Atomic(set_context_fn) next_set_context;

void *dispatch_source_create(const void *type, uintptr_t handle, uintptr_t mask, void *queue);
void dispatch_source_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway);
void dispatch_source_set_event_handler(void *source, void *handler);
void dispatch_source_set_event_handler_f(void *source, void (*handler)(void *));
void dispatch_resume(void *object);
void dispatch_suspend(void *object);
void dispatch_activate(void *object);
void dispatch_source_cancel(void *source);
uintptr_t dispatch_source_get_data(void *source);
void dispatch_set_context(void *object, void *context);
void dispatch_retain(void *object);
void dispatch_release(void *object);
void *dispatch_get_global_queue(long identifier, unsigned long flags);

// Called with `lock` held.
static shadow *find(void *source) {
    for (shadow *it = shadows; it != NULL; it = it->next) {
        if (it->source == source) return it;
    }
    return NULL;
}

// Called with `lock` held; frees the shadow with its last reference.
static void drop(shadow *it) {
    if (--it->references > 0) return;
    if (it->handler != NULL) marbles_foreign_release_block(it->handler);
    marbles_foreign_unhold(it->foreign);
    free(it);
}

// Called with `lock` held: takes the shadow off the list (a cancel); returns the source, for
// the caller to release once the lock is dropped (a last release runs libdispatch's disposal,
// which must not find the lock held).
static void *unlist(shadow *it) {
    marbles_ip_unlink((void **)&shadows, it);
    void *source = it->source;
    atomic_fetch_sub_explicit(&listed_count, 1, memory_order_release);
    drop(it);
    return source;
}

static void deliver(void *raw);
static void woke(void *raw);

// Arms the next wake-up `remaining_ns` from virtual now (on the driving thread). Called with `lock` held.
static void arm(shadow *it, long long remaining_ns) {
    wake *next = malloc(sizeof(wake));
    if (next == NULL) abort();
    *next = (wake){it, it->generation};
    it->references += 1;
    marbles_ip_hand_to_timer(it->foreign, NULL, remaining_ns, next, woke);
}

// Sends the handler to the source's queue (or the scheduler's loop, for the main queue). Called
// with `lock` held.
static void send_delivery(shadow *it, unsigned long data) {
    it->references += 1;
    it->data = data;
    void *queue = it->queue != NULL ? it->queue : dispatch_get_global_queue(0, 0);
    marbles_ip_hand_to_timer(it->foreign, queue, 0, it, deliver);
}

// A wake-up on virtual time, on the driving thread.
static void woke(void *raw) {
    wake *due = raw;
    shadow *it = due->shadow;
    unsigned long generation = due->generation;
    free(due);
    pthread_mutex_lock(&lock);
    if (!it->cancelled && it->generation == generation) {
        if (it->interval_ns != UINT64_MAX) arm(it, (long long)it->interval_ns);
        if (it->suspended > 0) {
            it->missed += 1;
        } else {
            send_delivery(it, 1);
        }
    }
    drop(it);
    pthread_mutex_unlock(&lock);
}

// The handler, on the source's queue as tracked work (or in the loop).
static void deliver(void *raw) {
    shadow *it = raw;
    pthread_mutex_lock(&lock);
    bool live = !it->cancelled;
    void *handler = it->handler != NULL ? marbles_foreign_copy_block(it->handler) : NULL;
    void (*function)(void *) = it->handler_function;
    void *context = it->handler_context;
    pthread_mutex_unlock(&lock);
    if (live && handler != NULL) {
        marbles_foreign_call_block(handler);
    } else if (live && function != NULL) {
        function(context);
    }
    if (handler != NULL) marbles_foreign_release_block(handler);
    pthread_mutex_lock(&lock);
    drop(it);
    pthread_mutex_unlock(&lock);
}

static const void *timer_type;
static pthread_once_t timer_type_once = PTHREAD_ONCE_INIT;
static void find_timer_type(void) { timer_type = dlsym(RTLD_DEFAULT, "_dispatch_source_type_timer"); }

static bool is_timer_type(const void *type) {
    pthread_once(&timer_type_once, find_timer_type);
    return type != NULL && type == timer_type;
}

void *dispatch_source_create(const void *type, uintptr_t handle, uintptr_t mask, void *queue) {
    source_create_fn next = NEXT(next_source_create, source_create_fn, "dispatch_source_create", dispatch_source_create);
    void *source = next(type, handle, mask, queue);
    if (source == NULL) return source;
    // URLSession's sources (libcurl's timer, a request's timeout, its sockets' reads and writes)
    // stay real: they pace real I/O. While one of a run's is armed, a request is on the wire,
    // and virtual time stands still.
    if (marbles_waits_possible() && marbles_ip_called_from_networking()) {
        marbles_io_begin(source, queue, "a URLSession request");
        return source;
    }
    if (!is_timer_type(type)) return source;
    marbles_foreign *foreign = marbles_ip_tracker_for((uintptr_t)__builtin_return_address(0));
    // Shadowed only where its schedule can go on virtual time: made on a driving thread whose
    // clocks are virtual.
    if (foreign == NULL ||
        !((marbles_route_foreign() == foreign && marbles_foreign_timer(foreign) != NULL && marbles_route_clocks() != NULL) ||
          marbles_member() == foreign)) {
        return source;
    }
    shadow *it = calloc(1, sizeof(shadow));
    if (it == NULL) abort();
    dispatch_retain(source);
    // The tracker outlives its run while a shadow may still name it (an escape noted later).
    marbles_foreign_hold(foreign);
    *it = (shadow){.source = source, .queue = queue, .foreign = foreign, .interval_ns = UINT64_MAX, .suspended = 1, .references = 1};
    pthread_mutex_lock(&lock);
    it->next = shadows;
    shadows = it;
    atomic_fetch_add_explicit(&listed_count, 1, memory_order_release);
    pthread_mutex_unlock(&lock);
    return source;
}

void dispatch_source_set_timer(void *source, uint64_t start, uint64_t interval, uint64_t leeway) {
    set_timer_fn next = NEXT(next_set_timer, set_timer_fn, "dispatch_source_set_timer", dispatch_source_set_timer);
    if (none_listed()) {
        next(source, start, interval, leeway);
        return;
    }
    pthread_mutex_lock(&lock);
    shadow *it = find(source);
    long long remaining = 0;
    if (it != NULL && !it->cancelled && marbles_ip_virtual_remaining(it->foreign, start, &remaining)) {
        it->generation += 1;
        it->interval_ns = interval == 0 ? 1 : interval;
        it->scheduled = true;
        it->missed = 0;
        arm(it, remaining);
        pthread_mutex_unlock(&lock);
        // libdispatch's own timer never fires.
        next(source, UINT64_MAX, UINT64_MAX, leeway);
        return;
    }
    void *listed = NULL;
    if (it != NULL) {
        // Off the driving thread, or a wall-clock deadline: the real timer, noted as an escape.
        marbles_foreign_note_escape(it->foreign, "a Dispatch timer source", it->queue != NULL ? it->queue : dispatch_get_global_queue(0, 0));
        it->generation += 1;
        listed = unlist(it);
    }
    pthread_mutex_unlock(&lock);
    next(source, start, interval, leeway);
    if (listed != NULL) dispatch_release(listed);
}

void dispatch_source_set_event_handler(void *source, void *handler) {
    set_handler_fn next = NEXT(next_set_handler, set_handler_fn, "dispatch_source_set_event_handler", dispatch_source_set_event_handler);
    if (!none_listed()) {
        pthread_mutex_lock(&lock);
        shadow *it = find(source);
        if (it != NULL) {
            if (it->handler != NULL) marbles_foreign_release_block(it->handler);
            it->handler = handler != NULL ? marbles_foreign_copy_block(handler) : NULL;
            it->handler_function = NULL;
        }
        pthread_mutex_unlock(&lock);
    }
    next(source, handler);
}

void dispatch_source_set_event_handler_f(void *source, void (*handler)(void *)) {
    set_handler_f_fn next =
        NEXT(next_set_handler_f, set_handler_f_fn, "dispatch_source_set_event_handler_f", dispatch_source_set_event_handler_f);
    if (!none_listed()) {
        pthread_mutex_lock(&lock);
        shadow *it = find(source);
        if (it != NULL) {
            if (it->handler != NULL) marbles_foreign_release_block(it->handler);
            it->handler = NULL;
            it->handler_function = handler;
        }
        pthread_mutex_unlock(&lock);
    }
    next(source, handler);
}

void dispatch_set_context(void *object, void *context) {
    set_context_fn next = NEXT(next_set_context, set_context_fn, "dispatch_set_context", dispatch_set_context);
    if (!none_listed()) {
        pthread_mutex_lock(&lock);
        shadow *it = find(object);
        if (it != NULL) it->handler_context = context;
        pthread_mutex_unlock(&lock);
    }
    next(object, context);
}

// One suspension less (resume, activate); delivers what was missed meanwhile, on the driving thread.
static void unsuspend(void *object, bool activating) {
    pthread_mutex_lock(&lock);
    shadow *it = find(object);
    if (it != NULL && it->suspended > 0 && (!activating || it->suspended == 1)) {
        it->suspended -= 1;
        if (it->suspended == 0 && it->missed > 0 && !it->cancelled &&
            (marbles_route_foreign() == it->foreign || marbles_member() == it->foreign)) {
            send_delivery(it, it->missed);
            it->missed = 0;
        }
    }
    pthread_mutex_unlock(&lock);
}

void dispatch_resume(void *object) {
    object_fn next = NEXT(next_resume, object_fn, "dispatch_resume", dispatch_resume);
    if (!none_listed()) unsuspend(object, false);
    next(object);
}

void dispatch_activate(void *object) {
    object_fn next = NEXT(next_activate, object_fn, "dispatch_activate", dispatch_activate);
    if (!none_listed()) unsuspend(object, true);
    next(object);
}

void dispatch_suspend(void *object) {
    object_fn next = NEXT(next_suspend, object_fn, "dispatch_suspend", dispatch_suspend);
    if (!none_listed()) {
        pthread_mutex_lock(&lock);
        shadow *it = find(object);
        if (it != NULL) it->suspended += 1;
        pthread_mutex_unlock(&lock);
    }
    next(object);
}

void dispatch_source_cancel(void *source) {
    object_fn next = NEXT(next_cancel, object_fn, "dispatch_source_cancel", dispatch_source_cancel);
    marbles_io_end(source);
    if (none_listed()) {
        next(source);
        return;
    }
    pthread_mutex_lock(&lock);
    shadow *it = find(source);
    void *listed = NULL;
    if (it != NULL) {
        it->cancelled = true;
        it->generation += 1;
        listed = unlist(it);
    }
    pthread_mutex_unlock(&lock);
    next(source);
    if (listed != NULL) dispatch_release(listed);
}

uintptr_t dispatch_source_get_data(void *source) {
    get_data_fn next = NEXT(next_get_data, get_data_fn, "dispatch_source_get_data", dispatch_source_get_data);
    if (none_listed()) return next(source);
    pthread_mutex_lock(&lock);
    shadow *it = find(source);
    uintptr_t data = it != NULL ? it->data : 0;
    pthread_mutex_unlock(&lock);
    return it != NULL ? data : next(source);
}
#endif
