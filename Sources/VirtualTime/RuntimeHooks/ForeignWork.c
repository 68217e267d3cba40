#define _GNU_SOURCE
#include "CRuntimeHooks.h"
#include "ThreadLocal.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <semaphore.h>
#include <time.h>

// Work the code under test hands to other threads from inside a run. The interposer
// (CClockInterposer) wraps each block, function or Foundation thread submitted on a driving
// thread, or from work already tracked, so that it begins and ends here; the driver waits, at the
// current virtual instant, until none is out, then runs what came back. Items are kept in a list
// for the message when the bound passes.

typedef struct item {
    long long sequence;
    marbles_foreign_kind kind;
    char label[96];
    long long submitted_ns;
    struct timespec began;
    // What it waits on for real, when the run cannot know (a semaphore made outside the run).
    const char *waits_on;
    struct item *next;
} item;

// A main-queue block that tracked work on another thread submitted while the test runs on the
// main actor: held for the driver, which runs it in its loop.
typedef struct held_block {
    long long sequence;
    void *context;
    void (*work)(void *);
    bool sync;
    struct held_block *next;
} held_block;

static const char *queue_label(void *queue);

struct marbles_foreign {
    _Atomic long references;
    // What the driver's loop reads between steps: work out (not abandoned) plus blocks held.
    _Atomic long pending;
    _Atomic long long now_ns;
    long long next_sequence;
    long out;
    item *items;
    void *owner;
    marbles_timer_fn timer;
    // The executor that jobs and main-queue blocks of tracked work go to while its runtime
    // lives (NULL once detached: late work takes the usual paths). Guarded by `mutex`: whoever
    // hands something to it holds the lock, so after `marbles_foreign_detach` returns nothing
    // reaches it. The tracker itself is reference counted and outlives it.
    void *driver;
    // Whether the driver runs main-actor work in its loop (its test runs on the main actor).
    _Atomic bool main_in_loop;
    // Its main-actor stand-in (never freed: the runtime keeps unretained references to it).
    marbles_executor_ref standin;
    held_block *held;
    held_block **held_tail;
    // Held blocks whose submitter waits for them (`DispatchQueue.main.sync`), under `mutex`.
    long held_sync;
    // Work that stays on real time inside the run (a timer libdispatch keeps), under `mutex`: the
    // first few, for the run's failures.
    marbles_escape escapes[4];
    int escape_count;
    // The run's clocks as its members read them: set once, on the driving thread, before any
    // member exists (`virtual_clocks` false: real clocks, MARBLES_PORTABLE=1).
    bool virtual_clocks;
    long long bases[3];
    // Members blocked in a known wait (not working), under `mutex`.
    long blocked;
    // Real I/O of the run ended since the driver last looked: its answer may be on its way.
    _Atomic bool io_ended;
    // Whether members read the run's clocks: from the tracker's making (virtual clocks only)
    // until its run is gone (`marbles_foreign_detach`), read without the lock.
    _Atomic bool members_virtual;
    // Of the work out, real I/O (under `mutex`): work held for the driver is its answer, run at once.
    long io_out;
    // Virtual wake-ups members asked for, for the driver to put on its heap (counted in `pending`).
    struct request *requests;
    struct request **requests_tail;
};

typedef struct request {
    struct request *next;
    marbles_wake_request wake;
} request;

// A member blocked in a known wait, listed under `mutex`.
typedef struct wait_record {
    struct wait_record *next;
    marbles_foreign *foreign;
    const void *object;
    marbles_wait_info info;
    bool woken;      // made to work again by a signal
    bool timed_out;  // its virtual deadline came
    sem_t *wake;     // a sleep's: posted when its deadline comes
} wait_record;

// Objects (semaphores, groups, conditions) made inside a run: a wait on one of them is known
// (only the run's work can end it, as Go's bubble knows its channels); a wait on anything else
// holds virtual time still.
typedef struct known_object {
    struct known_object *next;
    const void *object;
    marbles_foreign *foreign;
} known_object;

// One lock and condition for every tracker: work ends rarely, and a tracker is made for every
// test scheduler, which should not pay for a mutex and a condition of its own.
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;
static pthread_once_t changed_once = PTHREAD_ONCE_INIT;

static MARBLES_THREAD_LOCAL bool making_condition;

static void make_condition(void) {
    making_condition = true;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
#if defined(__linux__)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
#endif
    pthread_cond_init(&changed, &attributes);
    pthread_condattr_destroy(&attributes);
    making_condition = false;
}

static void release_waits(marbles_foreign *foreign);
typedef struct wait_record wait_record;
static long long list_wait(marbles_foreign *foreign, wait_record *it, marbles_wait_kind kind, const void *object, long long remaining_ns);
// The tracker of the tracked work running on this thread (the interposer reads it inline).
MARBLES_THREAD_LOCAL marbles_foreign *marbles_running_foreign;
// Set while the interposer waits for real on a member's behalf: its clock reads are real then.
static MARBLES_THREAD_LOCAL bool reading_real;
static wait_record *waits;
static known_object *known;
static long long next_wait_id;
// Trackers with virtual clocks alive: while none is, signals pass by without the lock.
static _Atomic long virtual_trackers;
// The real condition functions (the interposer's next ones once registered): this file's own
// waits must not come back through the interposer, which takes `mutex`.
static marbles_real_conditions real = {pthread_cond_wait, pthread_cond_timedwait, pthread_cond_broadcast};
static MARBLES_THREAD_LOCAL long long running_sequence = -1;
static void submit_with_dispatch(void *queue, void *context, void (*work)(void *));
// The interposer's untracked `dispatch_async_f` once it registered, else libdispatch's.
static void (*_Atomic submit_next)(void *, void *, void (*)(void *)) = submit_with_dispatch;


static void retain(marbles_foreign *foreign) { atomic_fetch_add_explicit(&foreign->references, 1, memory_order_relaxed); }

static void release(marbles_foreign *foreign) {
    if (atomic_fetch_sub_explicit(&foreign->references, 1, memory_order_acq_rel) != 1) return;
    for (item *it = foreign->items; it != NULL;) {
        item *next = it->next;
        free(it);
        it = next;
    }
    if (foreign->virtual_clocks) atomic_fetch_sub_explicit(&virtual_trackers, 1, memory_order_acq_rel);
    pthread_mutex_lock(&mutex);
    for (known_object **link = &known; *link != NULL;) {
        known_object *it = *link;
        if (it->foreign == foreign) {
            *link = it->next;
            free(it);
        } else {
            link = &it->next;
        }
    }
    pthread_mutex_unlock(&mutex);
    for (request *it = foreign->requests; it != NULL;) {
        request *next = it->next;
        free(it);
        it = next;
    }
    free(foreign);
}

marbles_foreign *marbles_foreign_create(void *owner, marbles_timer_fn timer) {
    marbles_foreign *foreign = calloc(1, sizeof(marbles_foreign));
    if (foreign == NULL) abort();
    atomic_init(&foreign->references, 1);
    atomic_init(&foreign->pending, 0);
    atomic_init(&foreign->now_ns, 0);
    atomic_init(&foreign->main_in_loop, false);
    foreign->owner = owner;
    foreign->timer = timer;
    foreign->held_tail = &foreign->held;
    foreign->requests_tail = &foreign->requests;
    // Made now, with no lock held: members' waits broadcast on it under the lock.
    pthread_once(&changed_once, make_condition);
    return foreign;
}

// Made on the driving thread, before any other thread can know the tracker.
static void attach(marbles_foreign *foreign, marbles_virtual_clocks *home) {
    foreign->driver = home->foreign_driver;
    if (marbles_route_clocks() == home) {
        if (!home->bases_set) marbles_clocks_set_bases(home);
        foreign->bases[0] = home->realtime_base_ns;
        foreign->bases[1] = home->monotonic_base_ns;
        foreign->bases[2] = home->boottime_base_ns;
        foreign->virtual_clocks = true;
        atomic_store_explicit(&foreign->members_virtual, true, memory_order_release);
        atomic_fetch_add_explicit(&virtual_trackers, 1, memory_order_acq_rel);
    }
    if (home->main_in_loop) marbles_foreign_set_main_in_loop(foreign, true);
}

// On the driving thread. The stand-in is made only for a test on the main actor (it is never
// freed), before the flag that publishes it to other threads.
void marbles_foreign_set_main_in_loop(marbles_foreign *foreign, bool in_loop) {
    if (in_loop && foreign->standin.identity == NULL && foreign->driver != NULL) {
        foreign->standin = marbles_runtime_standin(foreign->driver);
    }
    atomic_store_explicit(&foreign->main_in_loop, in_loop, memory_order_release);
}

void marbles_foreign_detach(marbles_foreign *foreign) {
    pthread_mutex_lock(&mutex);
    foreign->driver = NULL;
    atomic_store_explicit(&foreign->main_in_loop, false, memory_order_release);
    atomic_store_explicit(&foreign->members_virtual, false, memory_order_release);
    release_waits(foreign);
    held_block *held = foreign->held;
    foreign->held = NULL;
    foreign->held_tail = &foreign->held;
    pthread_mutex_unlock(&mutex);
    // Blocks nobody will run in a loop any more go to the real main queue.
    for (held_block *it = held; it != NULL;) {
        held_block *next = it->next;
        atomic_fetch_sub_explicit(&foreign->pending, 1, memory_order_release);
        submit_next(marbles_main_queue(), it->context, it->work);
        free(it);
        it = next;
    }
}

bool marbles_foreign_return_job(void *job) {
    marbles_foreign *foreign = marbles_running_foreign;
    if (foreign == NULL) return false;
    pthread_mutex_lock(&mutex);
    bool taken = foreign->driver != NULL;
    if (taken) marbles_runtime_return_job(foreign->driver, job);
    pthread_mutex_unlock(&mutex);
    return taken;
}

marbles_executor_ref marbles_foreign_running_standin(void) {
    marbles_foreign *foreign = marbles_running_foreign;
    if (foreign == NULL || !atomic_load_explicit(&foreign->main_in_loop, memory_order_acquire)) return (marbles_executor_ref){NULL, NULL};
    return foreign->standin;
}

bool marbles_foreign_hold_main(marbles_foreign *foreign, void *context, void (*work)(void *), bool sync) {
    if (!atomic_load_explicit(&foreign->main_in_loop, memory_order_acquire)) return false;
    held_block *block = malloc(sizeof(held_block));
    if (block == NULL) abort();
    *block = (held_block){marbles_running_foreign == foreign ? running_sequence : -1, context, work, sync, NULL};
    pthread_once(&changed_once, make_condition);
    pthread_mutex_lock(&mutex);
    bool held = foreign->driver != NULL && atomic_load_explicit(&foreign->main_in_loop, memory_order_relaxed);
    if (held) {
        *foreign->held_tail = block;
        foreign->held_tail = &block->next;
        if (sync) foreign->held_sync += 1;
        atomic_fetch_add_explicit(&foreign->pending, 1, memory_order_release);
        // A waiting driver looks: a block whose submitter waits cannot wait for the work out.
        real.broadcast(&changed);
    }
    pthread_mutex_unlock(&mutex);
    if (!held) free(block);
    return held;
}

long marbles_foreign_take_held(marbles_foreign *foreign, marbles_held_work *buffer, long capacity) {
    pthread_mutex_lock(&mutex);
    long count = 0;
    while (foreign->held != NULL && count < capacity) {
        held_block *it = foreign->held;
        foreign->held = it->next;
        buffer[count++] = (marbles_held_work){it->sequence, it->context, it->work};
        if (it->sync) foreign->held_sync -= 1;
        free(it);
    }
    if (foreign->held == NULL) foreign->held_tail = &foreign->held;
    atomic_fetch_sub_explicit(&foreign->pending, count, memory_order_release);
    pthread_mutex_unlock(&mutex);
    return count;
}


// Set and read on the driving thread only (the interposer asks on a driving thread).
void marbles_foreign_set_timer(marbles_foreign *foreign, void *owner, marbles_timer_fn timer) {
    foreign->owner = owner;
    foreign->timer = timer;
}

void marbles_foreign_submit_untracked(void *queue, void *context, void (*work)(void *)) { submit_next(queue, context, work); }

void marbles_foreign_hold(marbles_foreign *foreign) { retain(foreign); }

void marbles_foreign_unhold(marbles_foreign *foreign) { release(foreign); }

void marbles_foreign_release(marbles_foreign *foreign) {
    // Most runs handed nothing over: no lock, no clock read.
    if (atomic_load_explicit(&foreign->pending, memory_order_acquire) != 0) {
        marbles_foreign_abandon(foreign, NULL, 0);
    }
    release(foreign);
}



void marbles_foreign_note_escape_in(marbles_foreign *foreign, const char *what, const char *place) {
    long long at = atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    if (clocks != NULL && clocks->now_ns != NULL && marbles_route_foreign() == foreign) at = clocks->now_ns(clocks->context);
    pthread_mutex_lock(&mutex);
    if (foreign->escape_count < 4) {
        marbles_escape *it = &foreign->escapes[foreign->escape_count++];
        snprintf(it->what, sizeof it->what, "%s", what);
        snprintf(it->place, sizeof it->place, "%s", place);
        it->at_ns = at;
    }
    pthread_mutex_unlock(&mutex);
}

void marbles_foreign_note_escape(marbles_foreign *foreign, const char *what, void *queue) {
    char place[160];
    snprintf(place, sizeof place, "on queue '%s' runs on real time", queue_label(queue));
    marbles_foreign_note_escape_in(foreign, what, place);
}

long marbles_foreign_take_escapes(marbles_foreign *foreign, marbles_escape *buffer, long capacity) {
    pthread_mutex_lock(&mutex);
    long count = foreign->escape_count < capacity ? foreign->escape_count : capacity;
    for (long i = 0; i < count; i++) buffer[i] = foreign->escapes[i];
    foreign->escape_count = 0;
    pthread_mutex_unlock(&mutex);
    return count;
}

void *marbles_foreign_pending_address(marbles_foreign *foreign) { return (void *)&foreign->pending; }

void *marbles_foreign_now_address(marbles_foreign *foreign) { return (void *)&foreign->now_ns; }

marbles_foreign *marbles_foreign_here(void) {
    marbles_virtual_clocks *home = marbles_route_home();
    if (home == NULL) return marbles_running_foreign;
    if (home->foreign == NULL) {
        home->foreign = marbles_foreign_create(home->foreign_owner != NULL ? home->foreign_owner : (void *)1, home->foreign_timer);
        attach(home->foreign, home);
    }
    return home->foreign;
}

long long marbles_foreign_current_sequence(void) { return marbles_running_foreign != NULL ? running_sequence : -1; }


long long marbles_foreign_begin(marbles_foreign *foreign, marbles_foreign_kind kind, const char *label) {
    item *it = calloc(1, sizeof(item));
    if (it == NULL) abort();
    it->kind = kind;
    snprintf(it->label, sizeof it->label, "%s", label);
    // On the driving thread the clocks give virtual now exactly (the published time is the last
    // step's); elsewhere (work submitted from tracked work) the instant being settled.
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    bool driving = clocks != NULL && clocks->now_ns != NULL && marbles_route_foreign() == foreign;
    it->submitted_ns = driving ? clocks->now_ns(clocks->context) : atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
    // Members read the instant being settled: the one this work starts at.
    if (driving) atomic_store_explicit(&foreign->now_ns, it->submitted_ns, memory_order_relaxed);
    clock_gettime(CLOCK_MONOTONIC, &it->began);
    retain(foreign);
    pthread_mutex_lock(&mutex);
    it->sequence = ++foreign->next_sequence;
    it->next = foreign->items;
    foreign->items = it;
    foreign->out += 1;
    if (kind == marbles_foreign_kind_io) foreign->io_out += 1;
    atomic_fetch_add_explicit(&foreign->pending, 1, memory_order_release);
    pthread_mutex_unlock(&mutex);
    return it->sequence;
}

void marbles_foreign_end(marbles_foreign *foreign, long long sequence) {
    pthread_once(&changed_once, make_condition);
    pthread_mutex_lock(&mutex);
    for (item **link = &foreign->items; *link != NULL; link = &(*link)->next) {
        if ((*link)->sequence != sequence) continue;
        item *done = *link;
        *link = done->next;
        foreign->out -= 1;
        if (done->kind == marbles_foreign_kind_io) foreign->io_out -= 1;
        free(done);
        atomic_fetch_sub_explicit(&foreign->pending, 1, memory_order_release);
        break;
    }
    // Not found: it was abandoned (the bound passed), and no longer counts.
    real.broadcast(&changed);
    pthread_mutex_unlock(&mutex);
    release(foreign);
}

marbles_foreign_context marbles_foreign_enter(marbles_foreign *foreign, long long sequence) {
    marbles_foreign_context saved = {marbles_running_foreign, running_sequence};
    marbles_running_foreign = foreign;
    running_sequence = sequence;
    return saved;
}

void marbles_foreign_leave(marbles_foreign_context saved) {
    marbles_running_foreign = saved.foreign;
    running_sequence = saved.sequence;
}

typedef struct {
    marbles_foreign *foreign;
    long long sequence;
    void *context;
    void (*work)(void *);
    long long wait;  // a notification's wait for its group (0: none)
} submitted;

void *marbles_foreign_wrap(marbles_foreign *foreign, marbles_foreign_kind kind, const char *label, void *context, void (*work)(void *)) {
    submitted *s = malloc(sizeof(submitted));
    if (s == NULL) abort();
    *s = (submitted){foreign, marbles_foreign_begin(foreign, kind, label), context, work, 0};
    return s;
}

void marbles_foreign_run_wrapped(void *raw) {
    submitted *s = raw;
    if (s->wait != 0) marbles_wait_end(s->wait, true);
    marbles_foreign_context saved = marbles_foreign_enter(s->foreign, s->sequence);
    s->work(s->context);
    marbles_foreign_leave(saved);
    marbles_foreign_end(s->foreign, s->sequence);
    free(s);
}

// Found once, under a once: threads of parallel tests ask at the same time.
static const char *(*get_label)(void *);
static pthread_once_t label_once = PTHREAD_ONCE_INIT;

static void find_get_label(void) { get_label = (const char *(*)(void *))dlsym(RTLD_DEFAULT, "dispatch_queue_get_label"); }

static const char *queue_label(void *queue) {
    pthread_once(&label_once, find_get_label);
    const char *label = get_label != NULL ? get_label(queue) : NULL;
    return label != NULL && label[0] != 0 ? label : "(no label)";
}

void marbles_foreign_submit(marbles_foreign *foreign, void *queue, marbles_foreign_kind kind, void *context, void (*work)(void *)) {
    submit_next(queue, marbles_foreign_wrap(foreign, kind, queue_label(queue), context, work), marbles_foreign_run_wrapped);
}

static struct timespec after(long long ns) {
    struct timespec at;
    clock_gettime(CLOCK_MONOTONIC, &at);
    at.tv_sec += ns / 1000000000;
    at.tv_nsec += ns % 1000000000;
    if (at.tv_nsec >= 1000000000) {
        at.tv_sec += 1;
        at.tv_nsec -= 1000000000;
    }
    return at;
}

static bool before(struct timespec a, struct timespec b) { return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec); }

// How long work out may stand still while main-actor work waits for the driver before the
// driver runs that work anyway: the work out may be waiting for it (a semaphore the main-actor
// work signals), which it could never get otherwise.
enum { stall_ns = 100000000 };

marbles_foreign_wait_result marbles_foreign_wait(marbles_foreign *foreign, long long timeout_ns, const void *other_held) {
    pthread_once(&changed_once, make_condition);
    struct timespec deadline = after(timeout_ns);
    const _Atomic long *jobs_held = other_held;
    pthread_mutex_lock(&mutex);
    marbles_foreign_wait_result result = marbles_foreign_drained;
    long long seen_sequence = foreign->next_sequence;
    long seen_out = foreign->out - foreign->blocked;
    struct timespec stall = after(stall_ns);
    while (foreign->out - foreign->blocked > 0) {
        if (foreign->held_sync > 0) {
            result = marbles_foreign_main_needed;
            break;
        }
        // Jobs come back without a signal here: look again at least once a stall, or every
        // millisecond while only real I/O is out (what comes back then is its answer, which
        // the I/O may need to go on: URLSession's own tasks).
        bool only_io = foreign->out - foreign->blocked <= foreign->io_out;
        struct timespec next_look = only_io ? after(1000000) : stall;
        struct timespec wake = before(next_look, deadline) ? next_look : deadline;
        int status = real.timedwait(&changed, &mutex, &wake);
        bool held = foreign->held != NULL || (jobs_held != NULL && atomic_load_explicit(jobs_held, memory_order_acquire) > 0);
        if (foreign->out - foreign->blocked <= 0) break;
        if (held && foreign->out - foreign->blocked <= foreign->io_out) {
            result = marbles_foreign_main_needed;
            break;
        }
        if (foreign->out - foreign->blocked != seen_out || foreign->next_sequence != seen_sequence) {
            // Progress: the stall is counted from here.
            seen_out = foreign->out - foreign->blocked;
            seen_sequence = foreign->next_sequence;
            stall = after(stall_ns);
            continue;
        }
        if (status != ETIMEDOUT) continue;
        struct timespec now = after(0);
        if (!before(now, deadline)) {
            result = marbles_foreign_timed_out;
            break;
        }
        if (!before(now, stall)) {
            if (held) {
                result = marbles_foreign_main_needed;
                break;
            }
            stall = after(stall_ns);
        }
    }
    pthread_mutex_unlock(&mutex);
    return result;
}


long marbles_foreign_abandon(marbles_foreign *foreign, marbles_overdue *buffer, long capacity) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    pthread_mutex_lock(&mutex);
    long count = 0;
    for (item *it = foreign->items; it != NULL;) {
        if (buffer != NULL && count < capacity) {
            marbles_overdue *row = &buffer[count];
            *row = (marbles_overdue){it->kind, "", it->submitted_ns, 0, it->waits_on};
            snprintf(row->label, sizeof row->label, "%s", it->label);
            row->age_ns = (long long)(now.tv_sec - it->began.tv_sec) * 1000000000 + (now.tv_nsec - it->began.tv_nsec);
        }
        item *next = it->next;
        free(it);
        it = next;
        count += 1;
    }
    foreign->items = NULL;
    atomic_fetch_sub_explicit(&foreign->pending, foreign->out - foreign->blocked, memory_order_release);
    foreign->out = 0;
    foreign->io_out = 0;
    release_waits(foreign);
    pthread_mutex_unlock(&mutex);
    return count;
}

// Blocks, by their ABI (the runtime's copy and release, found once; the invoke function is the
// fourth word of a block literal).
typedef struct {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
} block_layout;

static void *(*block_copy)(const void *);
static void (*block_release)(const void *);
static pthread_once_t block_once = PTHREAD_ONCE_INIT;

static void find_block_runtime(void) {
    block_copy = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "_Block_copy");
    block_release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "_Block_release");
}

void *marbles_foreign_copy_block(void *block) {
    pthread_once(&block_once, find_block_runtime);
    return block_copy != NULL ? block_copy(block) : NULL;
}

void marbles_foreign_release_block(void *block) {
    if (block != NULL && block_release != NULL) block_release(block);
}

void marbles_foreign_call_block(void *block) {
    block_layout *layout = block;
    layout->invoke(block);
}

void marbles_foreign_invoke_block(void *block) {
    marbles_foreign_call_block(block);
    marbles_foreign_release_block(block);
}

marbles_timer_fn marbles_foreign_timer(marbles_foreign *foreign) { return foreign->timer; }

void *marbles_foreign_owner(marbles_foreign *foreign) { return foreign->owner; }

void marbles_foreign_register_submit(void (*submit)(void *, void *, void (*)(void *))) { submit_next = submit; }

// Before the interposer registered (or where it is not linked): the next definition of
// `dispatch_async_f` after this library's callers, found on the first use.
typedef void (*async_f_fn)(void *, void *, void (*)(void *));
static async_f_fn dispatch_async_f_next;
static pthread_once_t dispatch_once_flag = PTHREAD_ONCE_INIT;
static void *main_queue_address;

static void find_dispatch(void) {
    dispatch_async_f_next = (async_f_fn)dlsym(RTLD_NEXT, "dispatch_async_f");
    if (dispatch_async_f_next == NULL) dispatch_async_f_next = (async_f_fn)dlsym(RTLD_DEFAULT, "dispatch_async_f");
    main_queue_address = dlsym(RTLD_DEFAULT, "_dispatch_main_q");
}

static void submit_with_dispatch(void *queue, void *context, void (*work)(void *)) {
    pthread_once(&dispatch_once_flag, find_dispatch);
    if (dispatch_async_f_next != NULL) dispatch_async_f_next(queue, context, work);
}

void *marbles_main_queue(void) {
    pthread_once(&dispatch_once_flag, find_dispatch);
    return main_queue_address;
}


// MARK: Members and their waits

void marbles_register_real_conditions(marbles_real_conditions conditions) { real = conditions; }

marbles_foreign *marbles_member(void) {
    marbles_foreign *foreign = marbles_running_foreign;
    return foreign != NULL && !reading_real && atomic_load_explicit(&foreign->members_virtual, memory_order_acquire) ? foreign : NULL;
}

long long marbles_member_reading(marbles_foreign *foreign, int which) {
    return foreign->bases[which] + atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
}

void marbles_member_reading_real(bool on) { reading_real = on; }

static long long real_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// The real time a run spent before its first reading is not counted: virtual time starts at
// real time (or the start date) when the scheduler first drove.
void marbles_clocks_set_bases(marbles_virtual_clocks *clocks) {
    long long origin = clocks->origin_ns;
    clocks->realtime_base_ns = (clocks->has_start_date ? clocks->start_date_ns : real_ns(CLOCK_REALTIME)) - origin;
    clocks->monotonic_base_ns = real_ns(CLOCK_MONOTONIC) - origin;
    clocks->boottime_base_ns = real_ns(CLOCK_BOOTTIME) - origin;
    clocks->bases_set = true;
}

// Under `mutex`.
static void push_request(marbles_foreign *foreign, marbles_wake_request wake) {
    request *it = malloc(sizeof(request));
    if (it == NULL) abort();
    *it = (request){NULL, wake};
    *foreign->requests_tail = it;
    foreign->requests_tail = &it->next;
    atomic_fetch_add_explicit(&foreign->pending, 1, memory_order_release);
}

void marbles_foreign_request_wake(marbles_foreign *foreign, long long remaining_ns, void *queue, void *context, void (*work)(void *)) {
    long long due = atomic_load_explicit(&foreign->now_ns, memory_order_relaxed) + (remaining_ns < 0 ? 0 : remaining_ns);
    pthread_mutex_lock(&mutex);
    push_request(foreign, (marbles_wake_request){due, queue, queue != NULL && queue == marbles_main_queue(), context, work});
    pthread_mutex_unlock(&mutex);
}

long marbles_foreign_take_requests(marbles_foreign *foreign, marbles_wake_request *buffer, long capacity) {
    pthread_mutex_lock(&mutex);
    long count = 0;
    while (foreign->requests != NULL && count < capacity) {
        request *it = foreign->requests;
        foreign->requests = it->next;
        buffer[count++] = it->wake;
        free(it);
    }
    if (foreign->requests == NULL) foreign->requests_tail = &foreign->requests;
    atomic_fetch_sub_explicit(&foreign->pending, count, memory_order_release);
    pthread_mutex_unlock(&mutex);
    return count;
}

void marbles_note_object(const void *object) {
    if (making_condition) return;
    marbles_foreign *foreign = marbles_foreign_here();
    if (foreign == NULL || !foreign->virtual_clocks) return;
    known_object *it = malloc(sizeof(known_object));
    if (it == NULL) abort();
    pthread_mutex_lock(&mutex);
    *it = (known_object){known, object, foreign};
    known = it;
    pthread_mutex_unlock(&mutex);
}

void marbles_forget_object(const void *object) {
    if (!marbles_waits_possible()) return;
    pthread_mutex_lock(&mutex);
    for (known_object **link = &known; *link != NULL; link = &(*link)->next) {
        if ((*link)->object != object) continue;
        known_object *it = *link;
        *link = it->next;
        free(it);
        break;
    }
    pthread_mutex_unlock(&mutex);
}

// Set while this thread holds `mutex` for a signal: libdispatch signals its own semaphores
// through the interposer, and those pass by.
static MARBLES_THREAD_LOCAL bool signalling;

bool marbles_waits_possible(void) { return atomic_load_explicit(&virtual_trackers, memory_order_acquire) > 0 && !signalling; }

void marbles_waits_lock(void) {
    pthread_mutex_lock(&mutex);
    signalling = true;
}

void marbles_waits_unlock(void) {
    signalling = false;
    pthread_mutex_unlock(&mutex);
}

void marbles_publish_now_if_driving(void) {
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    marbles_foreign *foreign = marbles_route_foreign();
    if (clocks != NULL && clocks->now_ns != NULL && foreign != NULL) {
        atomic_store_explicit(&foreign->now_ns, clocks->now_ns(clocks->context), memory_order_relaxed);
    }
}

// Under `mutex`: a blocked member works again (a signal, its deadline). Woken by the driver, it
// reads the instant the driver is at, which the driver published before it took the lock
// (`marbles_publish_now_if_driving`: a call into Swift, never under the lock).
static void unblock(wait_record *it) {
    if (it->foreign == NULL) return;  // its run is gone, or gave up on its work
    it->foreign->blocked -= 1;
    atomic_fetch_add_explicit(&it->foreign->pending, 1, memory_order_release);
}

static wait_record *find_wait(long long id) {
    for (wait_record *it = waits; it != NULL; it = it->next) {
        if (it->info.id == id) return it;
    }
    return NULL;
}

// A wait's deadline, on the driving thread at its virtual instant.
static void deadline_came(void *context) {
    marbles_publish_now_if_driving();
    pthread_mutex_lock(&mutex);
    wait_record *it = find_wait((long long)(intptr_t)context);
    if (it != NULL && !it->woken && !it->timed_out) {
        it->timed_out = true;
        unblock(it);
        if (it->wake != NULL) sem_post(it->wake);
    }
    pthread_mutex_unlock(&mutex);
}

// Under `mutex`: the run is gone or gave up on its work: its members' waits no longer count, and
// sleeps end at once (on real time, as without a run).
static void release_waits(marbles_foreign *foreign) {
    foreign->blocked = 0;
    for (wait_record *it = waits; it != NULL; it = it->next) {
        if (it->foreign != foreign) continue;
        it->foreign = NULL;
        if (it->wake != NULL && !it->timed_out) {
            it->timed_out = true;
            sem_post(it->wake);
        }
    }
}

static bool is_known(const void *object, marbles_foreign *foreign) {
    for (known_object *it = known; it != NULL; it = it->next) {
        if (it->object == object) return it->foreign == foreign;
    }
    return false;
}

long long marbles_wait_begin(marbles_wait_kind kind, const void *object, long long remaining_ns, bool (*try_acquire)(const void *)) {
    marbles_foreign *foreign = marbles_member();
    if (foreign == NULL) return 0;
    wait_record *it = calloc(1, sizeof(wait_record));
    if (it == NULL) abort();
    sem_t *wake = NULL;
    if (kind == marbles_wait_sleep) {
        wake = malloc(sizeof(sem_t));
        if (wake == NULL) abort();
        sem_init(wake, 0, 0);
    }
    long long now = atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
    pthread_mutex_lock(&mutex);
    if (kind != marbles_wait_sleep && !is_known(object, foreign)) {
        pthread_mutex_unlock(&mutex);
        free(it);
        return 0;
    }
    if (try_acquire != NULL && try_acquire(object)) {
        pthread_mutex_unlock(&mutex);
        free(it);
        return -1;
    }
    it->wake = wake;
    long long id = list_wait(foreign, it, kind, object, remaining_ns);
    // The deadline's request first: the driver reads `pending` without the lock, and must never
    // see a blocked member and its wake-up both missing.
    if (remaining_ns >= 0) {
        push_request(foreign, (marbles_wake_request){now + remaining_ns, NULL, false, (void *)(intptr_t)id, deadline_came});
    }
    atomic_fetch_sub_explicit(&foreign->pending, 1, memory_order_release);
    for (item *work = foreign->items; work != NULL; work = work->next) {
        if (work->sequence != running_sequence) continue;
        it->info.member_kind = work->kind;
        snprintf(it->info.member, sizeof it->info.member, "%s", work->label);
    }
    real.broadcast(&changed);
    pthread_mutex_unlock(&mutex);
    return id;
}

bool marbles_wait_timed_out(long long id) {
    pthread_mutex_lock(&mutex);
    wait_record *it = find_wait(id);
    bool timed_out = it == NULL || it->timed_out;
    pthread_mutex_unlock(&mutex);
    return timed_out;
}

void marbles_wait_sleep_until_woken(long long id) {
    pthread_mutex_lock(&mutex);
    wait_record *it = find_wait(id);
    sem_t *wake = it != NULL ? it->wake : NULL;
    pthread_mutex_unlock(&mutex);
    // The record, and its semaphore, stay until this thread ends the wait.
    while (wake != NULL && sem_wait(wake) != 0 && errno == EINTR) {}
}

bool marbles_wait_end(long long id, bool satisfied) {
    pthread_mutex_lock(&mutex);
    wait_record *it = NULL;
    for (wait_record **link = &waits; *link != NULL; link = &(*link)->next) {
        if ((*link)->info.id != id) continue;
        it = *link;
        *link = it->next;
        break;
    }
    bool timed_out = false;
    if (it != NULL) {
        timed_out = it->timed_out;
        if (satisfied && !it->woken && !it->timed_out) {
            // Satisfied by a signal meant for another member waiter: that one waits on.
            wait_record *other = waits;
            while (other != NULL && !(other->object == it->object && other->woken)) other = other->next;
            unblock(it);
            if (other != NULL && other->foreign != NULL) {
                other->woken = false;
                other->foreign->blocked += 1;
                atomic_fetch_sub_explicit(&other->foreign->pending, 1, memory_order_release);
            }
        }
    }
    pthread_mutex_unlock(&mutex);
    if (it != NULL && it->wake != NULL) {
        sem_destroy(it->wake);
        free(it->wake);
    }
    free(it);
    return timed_out;
}

void marbles_wait_wake_locked(const void *object, long count) {
    // Oldest first: the list is newest first, so wake from its end.
    while (count != 0) {
        wait_record *oldest = NULL;
        for (wait_record *it = waits; it != NULL; it = it->next) {
            if (it->object == object && !it->woken && !it->timed_out) oldest = it;
        }
        if (oldest == NULL) break;
        oldest->woken = true;
        unblock(oldest);
        if (count > 0) count -= 1;
    }
    real.broadcast(&changed);
}

long marbles_foreign_blocked(marbles_foreign *foreign, marbles_wait_info *buffer, long capacity) {
    pthread_mutex_lock(&mutex);
    // Not settled (a member works, or a wake-up is still to be put on virtual time): no deadlock.
    long count = foreign->out - foreign->blocked > 0 || foreign->requests != NULL ? -1 : foreign->blocked > 0 ? foreign->blocked : 0;
    long filled = 0;
    for (wait_record *it = waits; it != NULL && buffer != NULL && filled < capacity; it = it->next) {
        if (it->foreign == foreign && !it->woken && !it->timed_out) buffer[filled++] = it->info;
    }
    pthread_mutex_unlock(&mutex);
    return count;
}


// Under `mutex`: lists a wait of `foreign`'s work and counts it blocked.
static long long list_wait(marbles_foreign *foreign, wait_record *it, marbles_wait_kind kind, const void *object, long long remaining_ns) {
    long long now = atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
    it->foreign = foreign;
    it->object = object;
    it->info = (marbles_wait_info){++next_wait_id, kind, now, remaining_ns < 0 ? -1 : now + remaining_ns, marbles_foreign_kind_block, ""};
    it->next = waits;
    waits = it;
    foreign->blocked += 1;
    return it->info.id;
}

void *marbles_foreign_wrap_notification(marbles_foreign *foreign, const void *group, void *context, void (*work)(void *)) {
    submitted *s = marbles_foreign_wrap(foreign, marbles_foreign_kind_block, "a group's notification", context, work);
    if (!foreign->virtual_clocks) return s;
    wait_record *it = calloc(1, sizeof(wait_record));
    if (it == NULL) abort();
    pthread_mutex_lock(&mutex);
    s->wait = list_wait(foreign, it, marbles_wait_group, group, -1);
    atomic_fetch_sub_explicit(&foreign->pending, 1, memory_order_release);
    snprintf(it->info.member, sizeof it->info.member, "a group's notification");
    pthread_mutex_unlock(&mutex);
    return s;
}


// Real I/O in flight, by handle, under `mutex`.
typedef struct io_record {
    struct io_record *next;
    const void *handle;
    marbles_foreign *foreign;
    long long sequence;
} io_record;
static io_record *ios;
// How many are listed: every cancel of a Dispatch source in the process asks, without the lock.
static _Atomic long io_count;

void marbles_io_begin(const void *handle, const void *queue, const char *label) {
    marbles_foreign *foreign = marbles_foreign_here();
    pthread_mutex_lock(&mutex);
    if (foreign == NULL && queue != NULL) {
        for (known_object *it = known; it != NULL && foreign == NULL; it = it->next) {
            if (it->object == queue) foreign = it->foreign;
        }
    } else if (foreign != NULL && queue != NULL && !is_known(queue, foreign)) {
        known_object *it = malloc(sizeof(known_object));
        if (it == NULL) abort();
        *it = (known_object){known, queue, foreign};
        known = it;
    }
    pthread_mutex_unlock(&mutex);
    if (foreign == NULL) return;
    io_record *it = malloc(sizeof(io_record));
    if (it == NULL) abort();
    *it = (io_record){NULL, handle, foreign, marbles_foreign_begin(foreign, marbles_foreign_kind_io, label)};
    pthread_mutex_lock(&mutex);
    it->next = ios;
    ios = it;
    atomic_fetch_add_explicit(&io_count, 1, memory_order_release);
    pthread_mutex_unlock(&mutex);
}

void marbles_io_end(const void *handle) {
    if (atomic_load_explicit(&io_count, memory_order_acquire) == 0) return;
    pthread_mutex_lock(&mutex);
    io_record *found = NULL;
    for (io_record **link = &ios; *link != NULL; link = &(*link)->next) {
        if ((*link)->handle != handle) continue;
        found = *link;
        *link = found->next;
        atomic_fetch_sub_explicit(&io_count, 1, memory_order_release);
        break;
    }
    pthread_mutex_unlock(&mutex);
    if (found == NULL) return;
    atomic_store_explicit(&found->foreign->io_ended, true, memory_order_release);
    marbles_foreign_end(found->foreign, found->sequence);
    free(found);
}

bool marbles_foreign_take_io_ended(marbles_foreign *foreign) {
    return atomic_load_explicit(&foreign->io_ended, memory_order_acquire) &&
           atomic_exchange_explicit(&foreign->io_ended, false, memory_order_acq_rel);
}

void marbles_member_waits_for_real(const char *what) {
    marbles_foreign *foreign = marbles_running_foreign;
    if (foreign == NULL) return;
    pthread_mutex_lock(&mutex);
    for (item *it = foreign->items; it != NULL; it = it->next) {
        if (it->sequence == running_sequence) it->waits_on = what;
    }
    pthread_mutex_unlock(&mutex);
}
