#define _GNU_SOURCE
#include "Run.h"
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
    marbles_work_kind kind;
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

struct marbles_members {
    _Atomic long references;
    // What the driver's loop reads between steps: work out (not abandoned) plus blocks held.
    _Atomic long pending;
    _Atomic long long now_ns;
    long long next_sequence;
    long out;
    item *items;
    // The runtime that takes timers (NULL: timers stay real; once detached: the run is gone).
    void *_Atomic owner;
    // The executor that jobs and main-queue blocks of tracked work go to while its runtime
    // lives (NULL once detached: late work takes the usual paths). Guarded by `mutex`: whoever
    // hands something to it holds the lock, so after `marbles_members_detach` returns nothing
    // reaches it. The tracker itself is reference counted and outlives it.
    void *driver;
    // Calls into the driver under way outside the lock (jobs handed back): detach waits for them.
    long calls;
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
    // until its run is gone (`marbles_members_detach`), read without the lock.
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
    marbles_members *members;
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
    marbles_members *members;
} known_object;

// One lock and condition for every tracker: work ends rarely, and a tracker is made for every
// test scheduler, which should not pay for a mutex and a condition of its own.
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() marbles_lock(&mutex, marbles_rank_members)
#define UNLOCK() marbles_unlock(&mutex, marbles_rank_members)
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

static void release_waits(marbles_members *members);
typedef struct wait_record wait_record;
static long long list_wait(marbles_members *members, wait_record *it, marbles_wait_kind kind, const void *object, long long remaining_ns);
// The tracker of the tracked work running on this thread (the interposer reads it inline).
MARBLES_THREAD_LOCAL marbles_members *marbles_running_members;
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


static void retain(marbles_members *members) { atomic_fetch_add_explicit(&members->references, 1, memory_order_relaxed); }

static void release(marbles_members *members) {
    if (atomic_fetch_sub_explicit(&members->references, 1, memory_order_acq_rel) != 1) return;
    for (item *it = members->items; it != NULL;) {
        item *next = it->next;
        free(it);
        it = next;
    }
    if (members->virtual_clocks) atomic_fetch_sub_explicit(&virtual_trackers, 1, memory_order_acq_rel);
    LOCK();
    for (known_object **link = &known; *link != NULL;) {
        known_object *it = *link;
        if (it->members == members) {
            *link = it->next;
            free(it);
        } else {
            link = &it->next;
        }
    }
    UNLOCK();
    for (request *it = members->requests; it != NULL;) {
        request *next = it->next;
        free(it);
        it = next;
    }
    free(members);
}

// Made on the driving thread at the run's first submission, before any other thread can know it.
static marbles_members *create(marbles_run *run) {
    marbles_members *members = calloc(1, sizeof(marbles_members));
    if (members == NULL) abort();
    atomic_init(&members->references, 1);
    atomic_init(&members->owner, run->owner);
    members->driver = run->driver;
    members->held_tail = &members->held;
    members->requests_tail = &members->requests;
    // Made now, with no lock held: members' waits broadcast on it under the lock.
    pthread_once(&changed_once, make_condition);
    if (marbles_route_virtual() == run) {
        if (!run->bases_set) marbles_run_set_bases(run);
        for (int i = 0; i < 3; i++) members->bases[i] = run->bases[i];
        members->virtual_clocks = true;
        atomic_store_explicit(&members->members_virtual, true, memory_order_release);
        atomic_fetch_add_explicit(&virtual_trackers, 1, memory_order_acq_rel);
    }
    if (run->main_in_loop) marbles_members_set_main_in_loop(members, true);
    return members;
}

// On the driving thread. The stand-in is made only for a test on the main actor (it is never
// freed), before the flag that publishes it to other threads.
void marbles_members_set_main_in_loop(marbles_members *members, bool in_loop) {
    if (in_loop && members->standin.identity == NULL && members->driver != NULL) {
        members->standin = marbles_standin_of(members->driver);
    }
    atomic_store_explicit(&members->main_in_loop, in_loop, memory_order_release);
}

void marbles_members_detach(marbles_members *members) {
    LOCK();
    while (members->calls > 0) real.wait(&changed, &mutex);
    members->driver = NULL;
    atomic_store_explicit(&members->owner, NULL, memory_order_relaxed);
    atomic_store_explicit(&members->main_in_loop, false, memory_order_release);
    atomic_store_explicit(&members->members_virtual, false, memory_order_release);
    release_waits(members);
    held_block *held = members->held;
    members->held = NULL;
    members->held_tail = &members->held;
    UNLOCK();
    // Blocks nobody will run in a loop any more go to the real main queue.
    for (held_block *it = held; it != NULL;) {
        held_block *next = it->next;
        atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
        submit_next(marbles_main_queue(), it->context, it->work);
        free(it);
        it = next;
    }
}

bool marbles_members_return_job(void *job) {
    marbles_members *members = marbles_running_members;
    if (members == NULL) return false;
    LOCK();
    void *driver = members->driver;
    if (driver != NULL) members->calls += 1;
    UNLOCK();
    if (driver == NULL) return false;
    MARBLES_SWIFT(returned)(driver, job);
    LOCK();
    if (--members->calls == 0) real.broadcast(&changed);
    UNLOCK();
    return true;
}

marbles_executor_ref marbles_members_running_standin(void) {
    marbles_members *members = marbles_running_members;
    if (members == NULL || !atomic_load_explicit(&members->main_in_loop, memory_order_acquire)) return (marbles_executor_ref){NULL, NULL};
    return members->standin;
}

bool marbles_members_hold_main(marbles_members *members, void *context, void (*work)(void *), bool sync) {
    if (!atomic_load_explicit(&members->main_in_loop, memory_order_acquire)) return false;
    held_block *block = malloc(sizeof(held_block));
    if (block == NULL) abort();
    *block = (held_block){marbles_running_members == members ? running_sequence : -1, context, work, sync, NULL};
    pthread_once(&changed_once, make_condition);
    LOCK();
    bool held = members->driver != NULL && atomic_load_explicit(&members->main_in_loop, memory_order_relaxed);
    if (held) {
        *members->held_tail = block;
        members->held_tail = &block->next;
        if (sync) members->held_sync += 1;
        atomic_fetch_add_explicit(&members->pending, 1, memory_order_release);
        // A waiting driver looks: a block whose submitter waits cannot wait for the work out.
        real.broadcast(&changed);
    }
    UNLOCK();
    if (!held) free(block);
    return held;
}

long marbles_members_take_held(marbles_members *members, marbles_held_work *buffer, long capacity) {
    LOCK();
    long count = 0;
    while (members->held != NULL && count < capacity) {
        held_block *it = members->held;
        members->held = it->next;
        buffer[count++] = (marbles_held_work){it->sequence, it->context, it->work};
        if (it->sync) members->held_sync -= 1;
        free(it);
    }
    if (members->held == NULL) members->held_tail = &members->held;
    atomic_fetch_sub_explicit(&members->pending, count, memory_order_release);
    UNLOCK();
    return count;
}


void marbles_members_submit_untracked(void *queue, void *context, void (*work)(void *)) { submit_next(queue, context, work); }

void marbles_members_hold(marbles_members *members) { retain(members); }

void marbles_members_unhold(marbles_members *members) { release(members); }

void marbles_members_release(marbles_members *members) {
    // Most runs handed nothing over: no lock, no clock read.
    if (atomic_load_explicit(&members->pending, memory_order_acquire) != 0) {
        marbles_members_abandon(members, NULL, 0);
    }
    release(members);
}



void marbles_members_note_escape(marbles_members *members, const char *what, const char *place) {
    long long at = marbles_members_now(members);
    LOCK();
    if (members->escape_count < 4) {
        marbles_escape *it = &members->escapes[members->escape_count++];
        snprintf(it->what, sizeof it->what, "%s", what);
        snprintf(it->place, sizeof it->place, "%s", place);
        it->at_ns = at;
    }
    UNLOCK();
}

void marbles_members_note_escape_on(marbles_members *members, const char *what, void *queue) {
    char place[160];
    snprintf(place, sizeof place, "on queue '%s' runs on real time", queue_label(queue));
    marbles_members_note_escape(members, what, place);
}

long marbles_members_take_escapes(marbles_members *members, marbles_escape *buffer, long capacity) {
    LOCK();
    long count = members->escape_count < capacity ? members->escape_count : capacity;
    for (long i = 0; i < count; i++) buffer[i] = members->escapes[i];
    members->escape_count = 0;
    UNLOCK();
    return count;
}

void *marbles_members_pending_address(marbles_members *members) { return (void *)&members->pending; }

void *marbles_members_now_address(marbles_members *members) { return (void *)&members->now_ns; }

marbles_members *marbles_members_here(void) {
    marbles_run *run = marbles_route_run();
    if (run == NULL) return marbles_running_members;
    if (run->members == NULL) run->members = create(run);
    return run->members;
}

long long marbles_members_current_sequence(void) { return marbles_running_members != NULL ? running_sequence : -1; }


long long marbles_members_begin(marbles_members *members, marbles_work_kind kind, const char *label) {
    item *it = calloc(1, sizeof(item));
    if (it == NULL) abort();
    it->kind = kind;
    snprintf(it->label, sizeof it->label, "%s", label);
    // Members read the instant being settled: the one this work starts at.
    it->submitted_ns = marbles_members_now(members);
    if (marbles_route_members() == members) atomic_store_explicit(&members->now_ns, it->submitted_ns, memory_order_relaxed);
    clock_gettime(CLOCK_MONOTONIC, &it->began);
    retain(members);
    LOCK();
    it->sequence = ++members->next_sequence;
    it->next = members->items;
    members->items = it;
    members->out += 1;
    if (kind == marbles_work_io) members->io_out += 1;
    atomic_fetch_add_explicit(&members->pending, 1, memory_order_release);
    UNLOCK();
    return it->sequence;
}

void marbles_members_end(marbles_members *members, long long sequence) {
    pthread_once(&changed_once, make_condition);
    LOCK();
    for (item **link = &members->items; *link != NULL; link = &(*link)->next) {
        if ((*link)->sequence != sequence) continue;
        item *done = *link;
        *link = done->next;
        members->out -= 1;
        if (done->kind == marbles_work_io) members->io_out -= 1;
        free(done);
        atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
        break;
    }
    // Not found: it was abandoned (the bound passed), and no longer counts.
    real.broadcast(&changed);
    UNLOCK();
    release(members);
}

marbles_member_context marbles_members_enter(marbles_members *members, long long sequence) {
    marbles_member_context saved = {marbles_running_members, running_sequence};
    marbles_running_members = members;
    running_sequence = sequence;
    return saved;
}

void marbles_members_leave(marbles_member_context saved) {
    marbles_running_members = saved.members;
    running_sequence = saved.sequence;
}

typedef struct {
    marbles_members *members;
    long long sequence;
    void *context;
    void (*work)(void *);
    long long wait;  // a notification's wait for its group (0: none)
} submitted;

void *marbles_members_wrap(marbles_members *members, marbles_work_kind kind, const char *label, void *context, void (*work)(void *)) {
    submitted *s = malloc(sizeof(submitted));
    if (s == NULL) abort();
    *s = (submitted){members, marbles_members_begin(members, kind, label), context, work, 0};
    return s;
}

void marbles_members_run_wrapped(void *raw) {
    submitted *s = raw;
    if (s->wait != 0) marbles_wait_end(s->wait, true);
    marbles_member_context saved = marbles_members_enter(s->members, s->sequence);
    s->work(s->context);
    marbles_members_leave(saved);
    marbles_members_end(s->members, s->sequence);
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

void marbles_members_submit(marbles_members *members, void *queue, marbles_work_kind kind, void *context, void (*work)(void *)) {
    submit_next(queue, marbles_members_wrap(members, kind, queue_label(queue), context, work), marbles_members_run_wrapped);
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

marbles_settle_result marbles_members_settle(marbles_members *members, long long timeout_ns, const void *other_held) {
    pthread_once(&changed_once, make_condition);
    struct timespec deadline = after(timeout_ns);
    const _Atomic long *jobs_held = other_held;
    LOCK();
    marbles_settle_result result = marbles_settle_drained;
    long long seen_sequence = members->next_sequence;
    long seen_out = members->out - members->blocked;
    struct timespec stall = after(stall_ns);
    while (members->out - members->blocked > 0) {
        if (members->held_sync > 0) {
            result = marbles_settle_main_needed;
            break;
        }
        // Jobs come back without a signal here: look again at least once a stall, or every
        // millisecond while only real I/O is out (what comes back then is its answer, which
        // the I/O may need to go on: URLSession's own tasks).
        bool only_io = members->out - members->blocked <= members->io_out;
        struct timespec next_look = only_io ? after(1000000) : stall;
        struct timespec wake = before(next_look, deadline) ? next_look : deadline;
        int status = real.timedwait(&changed, &mutex, &wake);
        bool held = members->held != NULL || (jobs_held != NULL && atomic_load_explicit(jobs_held, memory_order_acquire) > 0);
        if (members->out - members->blocked <= 0) break;
        if (held && members->out - members->blocked <= members->io_out) {
            result = marbles_settle_main_needed;
            break;
        }
        if (members->out - members->blocked != seen_out || members->next_sequence != seen_sequence) {
            // Progress: the stall is counted from here.
            seen_out = members->out - members->blocked;
            seen_sequence = members->next_sequence;
            stall = after(stall_ns);
            continue;
        }
        if (status != ETIMEDOUT) continue;
        struct timespec now = after(0);
        if (!before(now, deadline)) {
            result = marbles_settle_timed_out;
            break;
        }
        if (!before(now, stall)) {
            if (held) {
                result = marbles_settle_main_needed;
                break;
            }
            stall = after(stall_ns);
        }
    }
    UNLOCK();
    return result;
}


long marbles_members_abandon(marbles_members *members, marbles_overdue *buffer, long capacity) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    LOCK();
    long count = 0;
    for (item *it = members->items; it != NULL;) {
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
    members->items = NULL;
    atomic_fetch_sub_explicit(&members->pending, members->out - members->blocked, memory_order_release);
    members->out = 0;
    members->io_out = 0;
    release_waits(members);
    UNLOCK();
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

void *marbles_copy_block(void *block) {
    pthread_once(&block_once, find_block_runtime);
    return block_copy != NULL ? block_copy(block) : NULL;
}

void marbles_release_block(void *block) {
    if (block != NULL && block_release != NULL) block_release(block);
}

void marbles_call_block(void *block) {
    block_layout *layout = block;
    layout->invoke(block);
}

void marbles_invoke_block(void *block) {
    marbles_call_block(block);
    marbles_release_block(block);
}

void marbles_register_submit(void (*submit)(void *, void *, void (*)(void *))) { submit_next = submit; }

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

marbles_members *marbles_member(void) {
    marbles_members *members = marbles_running_members;
    return members != NULL && !reading_real && atomic_load_explicit(&members->members_virtual, memory_order_acquire) ? members : NULL;
}

long long marbles_member_reading(marbles_members *members, int which) {
    return members->bases[which] + atomic_load_explicit(&members->now_ns, memory_order_relaxed);
}

void marbles_member_reading_real(bool on) { reading_real = on; }

bool marbles_driving(marbles_members *members) {
    return members != NULL && marbles_route_members() == members && atomic_load_explicit(&members->owner, memory_order_relaxed) != NULL;
}

long long marbles_members_now(marbles_members *members) {
    marbles_run *run = marbles_route_run();
    if (run != NULL && run->members == members) return marbles_run_now(run);
    return atomic_load_explicit(&members->now_ns, memory_order_relaxed);
}

// Under `mutex`.
static void push_request(marbles_members *members, marbles_wake_request wake) {
    request *it = malloc(sizeof(request));
    if (it == NULL) abort();
    *it = (request){NULL, wake};
    *members->requests_tail = it;
    members->requests_tail = &it->next;
    atomic_fetch_add_explicit(&members->pending, 1, memory_order_release);
}

void marbles_members_hand(
    marbles_members *members, long long now_ns, long long remaining_ns, void *queue, void *context, void (*work)(void *), bool locked) {
    if (remaining_ns < 0) remaining_ns = 0;
    bool is_main = queue != NULL && queue == marbles_main_queue();
    if (!locked && marbles_driving(members)) return MARBLES_SWIFT(timer)(atomic_load_explicit(&members->owner, memory_order_relaxed), queue, is_main, remaining_ns, context, work);
    LOCK();
    push_request(members, (marbles_wake_request){now_ns + remaining_ns, queue, is_main, context, work});
    UNLOCK();
}

long marbles_members_take_requests(marbles_members *members, marbles_wake_request *buffer, long capacity) {
    LOCK();
    long count = 0;
    while (members->requests != NULL && count < capacity) {
        request *it = members->requests;
        members->requests = it->next;
        buffer[count++] = it->wake;
        free(it);
    }
    if (members->requests == NULL) members->requests_tail = &members->requests;
    atomic_fetch_sub_explicit(&members->pending, count, memory_order_release);
    UNLOCK();
    return count;
}

void marbles_note_object(const void *object) {
    if (making_condition) return;
    marbles_members *members = marbles_members_here();
    if (members == NULL || !members->virtual_clocks) return;
    known_object *it = malloc(sizeof(known_object));
    if (it == NULL) abort();
    LOCK();
    *it = (known_object){known, object, members};
    known = it;
    UNLOCK();
}

void marbles_forget_object(const void *object) {
    if (!marbles_waits_possible()) return;
    LOCK();
    for (known_object **link = &known; *link != NULL; link = &(*link)->next) {
        if ((*link)->object != object) continue;
        known_object *it = *link;
        *link = it->next;
        free(it);
        break;
    }
    UNLOCK();
}

// Set while this thread holds `mutex` for a signal: libdispatch signals its own semaphores
// through the interposer, and those pass by.
static MARBLES_THREAD_LOCAL bool signalling;

bool marbles_waits_possible(void) { return atomic_load_explicit(&virtual_trackers, memory_order_acquire) > 0 && !signalling; }

// A driving thread publishes its virtual now before it wakes members, who then read it.
static void publish_now_if_driving(void) {
    marbles_run *run = marbles_route_virtual();
    if (run != NULL && run->members != NULL) atomic_store_explicit(&run->members->now_ns, marbles_run_now(run), memory_order_relaxed);
}

void marbles_waits_lock(void) {
    publish_now_if_driving();
    LOCK();
    signalling = true;
}

void marbles_waits_unlock(void) {
    signalling = false;
    UNLOCK();
}

// Under `mutex`: a blocked member works again (a signal, its deadline). Woken by the driver, it
// reads the instant the driver is at, which the driver published before it took the lock
// (`publish_now_if_driving`: a call into Swift, never under the lock).
static void unblock(wait_record *it) {
    if (it->members == NULL) return;  // its run is gone, or gave up on its work
    it->members->blocked -= 1;
    atomic_fetch_add_explicit(&it->members->pending, 1, memory_order_release);
}

static wait_record *find_wait(long long id) {
    for (wait_record *it = waits; it != NULL; it = it->next) {
        if (it->info.id == id) return it;
    }
    return NULL;
}

// A wait's deadline, on the driving thread at its virtual instant.
static void deadline_came(void *context) {
    publish_now_if_driving();
    LOCK();
    wait_record *it = find_wait((long long)(intptr_t)context);
    if (it != NULL && !it->woken && !it->timed_out) {
        it->timed_out = true;
        unblock(it);
        if (it->wake != NULL) sem_post(it->wake);
    }
    UNLOCK();
}

// Under `mutex`: the run is gone or gave up on its work: its members' waits no longer count, and
// sleeps end at once (on real time, as without a run).
static void release_waits(marbles_members *members) {
    members->blocked = 0;
    for (wait_record *it = waits; it != NULL; it = it->next) {
        if (it->members != members) continue;
        it->members = NULL;
        if (it->wake != NULL && !it->timed_out) {
            it->timed_out = true;
            sem_post(it->wake);
        }
    }
}

static bool is_known(const void *object, marbles_members *members) {
    for (known_object *it = known; it != NULL; it = it->next) {
        if (it->object == object) return it->members == members;
    }
    return false;
}

long long marbles_wait_begin(marbles_wait_kind kind, const void *object, long long remaining_ns, bool (*try_acquire)(const void *)) {
    marbles_members *members = marbles_member();
    if (members == NULL) return 0;
    wait_record *it = calloc(1, sizeof(wait_record));
    if (it == NULL) abort();
    sem_t *wake = NULL;
    if (kind == marbles_wait_sleep) {
        wake = malloc(sizeof(sem_t));
        if (wake == NULL) abort();
        sem_init(wake, 0, 0);
    }
    long long now = atomic_load_explicit(&members->now_ns, memory_order_relaxed);
    LOCK();
    if (kind != marbles_wait_sleep && !is_known(object, members)) {
        UNLOCK();
        free(it);
        return 0;
    }
    if (try_acquire != NULL && try_acquire(object)) {
        UNLOCK();
        free(it);
        return -1;
    }
    it->wake = wake;
    long long id = list_wait(members, it, kind, object, remaining_ns);
    // The deadline's request first: the driver reads `pending` without the lock, and must never
    // see a blocked member and its wake-up both missing.
    if (remaining_ns >= 0) {
        push_request(members, (marbles_wake_request){now + remaining_ns, NULL, false, (void *)(intptr_t)id, deadline_came});
    }
    atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
    for (item *work = members->items; work != NULL; work = work->next) {
        if (work->sequence != running_sequence) continue;
        it->info.member_kind = work->kind;
        snprintf(it->info.member, sizeof it->info.member, "%s", work->label);
    }
    real.broadcast(&changed);
    UNLOCK();
    return id;
}

bool marbles_wait_timed_out(long long id) {
    LOCK();
    wait_record *it = find_wait(id);
    bool timed_out = it == NULL || it->timed_out;
    UNLOCK();
    return timed_out;
}

void marbles_wait_sleep_until_woken(long long id) {
    LOCK();
    wait_record *it = find_wait(id);
    sem_t *wake = it != NULL ? it->wake : NULL;
    UNLOCK();
    // The record, and its semaphore, stay until this thread ends the wait.
    while (wake != NULL && sem_wait(wake) != 0 && errno == EINTR) {}
}

bool marbles_wait_end(long long id, bool satisfied) {
    LOCK();
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
            if (other != NULL && other->members != NULL) {
                other->woken = false;
                other->members->blocked += 1;
                atomic_fetch_sub_explicit(&other->members->pending, 1, memory_order_release);
            }
        }
    }
    UNLOCK();
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

long marbles_members_blocked(marbles_members *members, marbles_wait_info *buffer, long capacity) {
    LOCK();
    // Not settled (a member works, or a wake-up is still to be put on virtual time): no deadlock.
    long count = members->out - members->blocked > 0 || members->requests != NULL ? -1 : members->blocked > 0 ? members->blocked : 0;
    long filled = 0;
    for (wait_record *it = waits; it != NULL && buffer != NULL && filled < capacity; it = it->next) {
        if (it->members == members && !it->woken && !it->timed_out) buffer[filled++] = it->info;
    }
    UNLOCK();
    return count;
}


// Under `mutex`: lists a wait of `members`'s work and counts it blocked.
static long long list_wait(marbles_members *members, wait_record *it, marbles_wait_kind kind, const void *object, long long remaining_ns) {
    long long now = atomic_load_explicit(&members->now_ns, memory_order_relaxed);
    it->members = members;
    it->object = object;
    it->info = (marbles_wait_info){++next_wait_id, kind, now, remaining_ns < 0 ? -1 : now + remaining_ns, marbles_work_block, ""};
    it->next = waits;
    waits = it;
    members->blocked += 1;
    return it->info.id;
}

void *marbles_members_wrap_notification(marbles_members *members, const void *group, void *context, void (*work)(void *)) {
    submitted *s = marbles_members_wrap(members, marbles_work_block, "a group's notification", context, work);
    if (!members->virtual_clocks) return s;
    wait_record *it = calloc(1, sizeof(wait_record));
    if (it == NULL) abort();
    LOCK();
    s->wait = list_wait(members, it, marbles_wait_group, group, -1);
    atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
    snprintf(it->info.member, sizeof it->info.member, "a group's notification");
    UNLOCK();
    return s;
}


// Real I/O in flight, by handle, under `mutex`.
typedef struct io_record {
    struct io_record *next;
    const void *handle;
    marbles_members *members;
    long long sequence;
} io_record;
static io_record *ios;
// How many are listed: every cancel of a Dispatch source in the process asks, without the lock.
static _Atomic long io_count;

void marbles_io_begin(const void *handle, const void *queue, const char *label) {
    marbles_members *members = marbles_members_here();
    LOCK();
    if (members == NULL && queue != NULL) {
        for (known_object *it = known; it != NULL && members == NULL; it = it->next) {
            if (it->object == queue) members = it->members;
        }
    } else if (members != NULL && queue != NULL && !is_known(queue, members)) {
        known_object *it = malloc(sizeof(known_object));
        if (it == NULL) abort();
        *it = (known_object){known, queue, members};
        known = it;
    }
    UNLOCK();
    if (members == NULL) return;
    io_record *it = malloc(sizeof(io_record));
    if (it == NULL) abort();
    *it = (io_record){NULL, handle, members, marbles_members_begin(members, marbles_work_io, label)};
    LOCK();
    it->next = ios;
    ios = it;
    atomic_fetch_add_explicit(&io_count, 1, memory_order_release);
    UNLOCK();
}

void marbles_io_end(const void *handle) {
    if (atomic_load_explicit(&io_count, memory_order_acquire) == 0) return;
    LOCK();
    io_record *found = NULL;
    for (io_record **link = &ios; *link != NULL; link = &(*link)->next) {
        if ((*link)->handle != handle) continue;
        found = *link;
        *link = found->next;
        atomic_fetch_sub_explicit(&io_count, 1, memory_order_release);
        break;
    }
    UNLOCK();
    if (found == NULL) return;
    atomic_store_explicit(&found->members->io_ended, true, memory_order_release);
    marbles_members_end(found->members, found->sequence);
    free(found);
}

bool marbles_members_take_io_ended(marbles_members *members) {
    return atomic_load_explicit(&members->io_ended, memory_order_acquire) &&
           atomic_exchange_explicit(&members->io_ended, false, memory_order_acq_rel);
}

void marbles_member_waits_for_real(const char *what) {
    marbles_members *members = marbles_running_members;
    if (members == NULL) return;
    LOCK();
    for (item *it = members->items; it != NULL; it = it->next) {
        if (it->sequence == running_sequence) it->waits_on = what;
    }
    UNLOCK();
}
