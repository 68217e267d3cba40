// Dispatch timer sources on virtual time (Linux): shadowed where made on a driving thread with
// virtual clocks or by a member; anything else keeps its real timer and is noted as an escape.
// docs/DESIGN.md, "Dispatch timer sources".
#include "InterposerShared.h"

#if defined(__linux__)
typedef struct {
    marbles_shadow base;            // `object`: the source, retained while listed
    void *queue;
    void *handler;                  // a copied block, or NULL
    void *handler_context;          // the `_f` form's
    void (*handler_function)(void *);
    uint64_t interval_ns;           // UINT64_MAX: one-shot
    long suspended;                 // 1 while inactive, as made
    bool cancelled;
    unsigned long missed;           // fires while suspended, delivered on resume
    unsigned long data;             // what `dispatch_source_get_data` answers in the handler
} source;

void *dispatch_get_global_queue(long identifier, unsigned long flags);

static void dispose(marbles_shadow *shadow) {
    marbles_release_block(((source *)shadow)->handler);
    free(shadow);
}

static marbles_registry sources = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, dispatch_release, dispose};

INTERPOSED(void *, dispatch_source_create, const void *type, uintptr_t handle, uintptr_t mask, void *queue);
INTERPOSED(void, dispatch_source_set_timer, void *source, uint64_t start, uint64_t interval, uint64_t leeway);
INTERPOSED(void, dispatch_source_set_event_handler, void *source, void *handler);
INTERPOSED(void, dispatch_source_set_event_handler_f, void *source, void (*handler)(void *));
INTERPOSED(void, dispatch_set_context, void *object, void *context);
INTERPOSED(void, dispatch_resume, void *object);
INTERPOSED(void, dispatch_suspend, void *object);
INTERPOSED(void, dispatch_activate, void *object);
INTERPOSED(void, dispatch_source_cancel, void *source);
INTERPOSED(uintptr_t, dispatch_source_get_data, void *source);

// The handler, on the source's queue as member work (or in the loop).
static void deliver(void *raw) {
    source *it = raw;
    marbles_locked locked;
    marbles_registry_lock(&locked, &sources);
    void *block = !it->cancelled && it->handler != NULL ? marbles_copy_block(it->handler) : NULL;
    void (*function)(void *) = it->cancelled ? NULL : block != NULL ? marbles_call_block : it->handler_function;
    void *argument = block != NULL ? block : it->handler_context;
    marbles_registry_unlock(&locked);
    if (function != NULL) function(argument);
    marbles_release_block(block);
    marbles_registry_lock(&locked, &sources);
    marbles_registry_drop(&locked, &it->base);
    marbles_registry_unlock(&locked);
}

// Sends the handler to the source's queue (or the scheduler's loop, for the main queue).
static void send_delivery(marbles_locked *locked, source *it, unsigned long data) {
    it->data = data;
    marbles_registry_hand(locked, &it->base, it->queue, 0, it, deliver);
}

// A wake-up on virtual time, on the driving thread.
static void woke(void *raw) {
    unsigned long generation;
    source *it = (source *)marbles_registry_woken(raw, &generation);
    marbles_locked locked;
    marbles_registry_lock(&locked, &sources);
    if (!it->cancelled && it->base.generation == generation) {
        if (it->interval_ns != UINT64_MAX) marbles_registry_arm(&locked, &it->base, (long long)it->interval_ns, woke);
        if (it->suspended > 0) it->missed += 1;
        else send_delivery(&locked, it, 1);
    }
    marbles_registry_drop(&locked, &it->base);
    marbles_registry_unlock(&locked);
}

extern __attribute__((weak)) const char _dispatch_source_type_timer[];

void *dispatch_source_create(const void *type, uintptr_t handle, uintptr_t mask, void *queue) {
    void *made = NEXT_OF(dispatch_source_create)(type, handle, mask, queue);
    if (made == NULL) return made;
    // URLSession's sources (libcurl's timer, a timeout, its sockets) pace real I/O and stay real;
    // while one of a run's is armed, a request is on the wire and virtual time stands still.
    if (marbles_waits_possible() && marbles_ip_called_from_networking()) {
        marbles_io_begin(made, queue, "a URLSession request");
        return made;
    }
    if (type == NULL || type != _dispatch_source_type_timer) return made;
    marbles_members *members = marbles_ip_members_for(CALLER);
    // Shadowed where its schedule can be virtual: on a driving thread with virtual clocks, or a member.
    if (members == NULL || marbles_ip_timers_here() != members) return made;
    source *it = marbles_allocate(sizeof(source));
    dispatch_retain(made);
    *it = (source){.base = {.object = made, .members = members}, .queue = queue != NULL ? queue : dispatch_get_global_queue(0, 0), .interval_ns = UINT64_MAX, .suspended = 1};
    marbles_locked locked;
    marbles_registry_lock(&locked, &sources);
    marbles_registry_add(&locked, &it->base);
    marbles_registry_unlock(&locked);
    return made;
}

void dispatch_source_set_timer(void *object, uint64_t start, uint64_t interval, uint64_t leeway) {
    dispatch_source_set_timer_fn next = NEXT_OF(dispatch_source_set_timer);
    if (marbles_registry_empty(&sources)) return next(object, start, interval, leeway);
    marbles_members *here = marbles_ip_timers_here();
    long long remaining = 0;
    bool virtual = here != NULL && marbles_ip_virtual_remaining(here, start, &remaining);
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    if (it != NULL && !it->cancelled && virtual && it->base.members == here) {
        it->base.generation += 1;
        it->interval_ns = interval == 0 ? 1 : interval;
        it->missed = 0;
        marbles_registry_arm(&locked, &it->base, remaining, woke);
        marbles_registry_unlock(&locked);
        // libdispatch's own timer never fires.
        return next(object, UINT64_MAX, UINT64_MAX, leeway);
    }
    // Off the run's threads, or a wall-clock deadline: the real timer, noted as an escape.
    marbles_members *escaped = it != NULL ? it->base.members : NULL;
    void *queue = it != NULL ? it->queue : NULL;
    if (it != NULL) marbles_members_hold(escaped), marbles_registry_remove(&locked, &it->base);
    marbles_registry_unlock(&locked);
    next(object, start, interval, leeway);
    if (escaped != NULL) {
        marbles_members_note_escape(escaped, "a Dispatch timer source", "on queue '%s' runs on real time", marbles_queue_label(queue));
        marbles_members_unhold(escaped);
    }
}

// Replaces the handler (a block, or a function); the old block is let go of after the unlock.
static void set_handler(void *object, void *block, void (*function)(void *)) {
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    void *old = it != NULL ? it->handler : NULL;
    if (it != NULL) {
        it->handler = block != NULL ? marbles_copy_block(block) : NULL;
        it->handler_function = function;
    }
    marbles_registry_unlock(&locked);
    marbles_release_block(old);
}

void dispatch_source_set_event_handler(void *object, void *handler) {
    set_handler(object, handler, NULL), NEXT_OF(dispatch_source_set_event_handler)(object, handler);
}

void dispatch_source_set_event_handler_f(void *object, void (*handler)(void *)) {
    set_handler(object, NULL, handler), NEXT_OF(dispatch_source_set_event_handler_f)(object, handler);
}

void dispatch_set_context(void *object, void *context) {
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    if (it != NULL) it->handler_context = context;
    marbles_registry_unlock(&locked);
    NEXT_OF(dispatch_set_context)(object, context);
}

// One suspension more (`by` 1) or less (-1: resume, activate), which delivers what was missed.
static void suspend(void *object, long by, bool activating) {
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    if (it != NULL && (by > 0 || (it->suspended > 0 && (!activating || it->suspended == 1)))) {
        it->suspended += by;
        if (it->suspended == 0 && it->missed > 0 && !it->cancelled && it->base.members == marbles_ip_timers_here()) {
            send_delivery(&locked, it, it->missed);
            it->missed = 0;
        }
    }
    marbles_registry_unlock(&locked);
}

void dispatch_resume(void *object) { suspend(object, -1, false), NEXT_OF(dispatch_resume)(object); }

void dispatch_activate(void *object) { suspend(object, -1, true), NEXT_OF(dispatch_activate)(object); }

void dispatch_suspend(void *object) { suspend(object, 1, false), NEXT_OF(dispatch_suspend)(object); }

void dispatch_source_cancel(void *object) {
    marbles_io_end(object);
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    if (it != NULL) {
        it->cancelled = true;
        // Kept past the unlock: libdispatch's cancel comes before the last release (maybe the list's).
        dispatch_retain(object);
        marbles_registry_remove(&locked, &it->base);
    }
    marbles_registry_unlock(&locked);
    NEXT_OF(dispatch_source_cancel)(object);
    if (it != NULL) dispatch_release(object);
}

uintptr_t dispatch_source_get_data(void *object) {
    marbles_locked locked;
    source *it = (source *)marbles_registry_open(&locked, &sources, object);
    uintptr_t data = it != NULL ? it->data : 0;
    marbles_registry_unlock(&locked);
    return it != NULL ? data : NEXT_OF(dispatch_source_get_data)(object);
}
#endif
