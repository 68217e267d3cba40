// A run's members (Run.h): work out, hand-offs to the driver, known waits, real I/O, and the
// driver's settle. docs/DESIGN.md, "One bubble".
#include "Run.h"
#include <stdarg.h>

// Weak: bound at load to what the process has (NULL without them). Only here: the interposer
// defines some of these.
#define WEAK __attribute__((weak))
extern WEAK void *dispatch_get_global_queue(long identifier, unsigned long flags);
extern WEAK const char *dispatch_queue_get_label(void *queue);
extern WEAK unsigned dispatch_queue_get_qos_class(void *queue, int *relative_priority);
extern WEAK void dispatch_async_f(void *queue, void *context, void (*work)(void *));
extern WEAK char _dispatch_main_q[];
extern WEAK void *_Block_copy(const void *block);
extern WEAK void _Block_release(const void *block);

// Work out: its row for the report when the bound passes.
typedef struct item {
    struct item *next;
    long long sequence, began_ns;
    marbles_overdue row;
} item;

// A hand-off to the driver, in arrival order; a held block's submitter may wait for it (`sync`).
typedef struct handoff {
    struct handoff *next;
    marbles_handoff out;
    bool sync;
} handoff;

struct marbles_members {
    _Atomic long references;
    _Atomic long pending;  // what the driver's loop reads between steps: work out plus hand-offs
    _Atomic long long now_ns;  // the instant being settled, which members read
    // The runtime (timers go to it) and its executor (jobs and held blocks), NULL once detached;
    // `calls`: jobs being handed to the executor outside the lock, which detach waits for.
    void *_Atomic owner;
    void *driver;
    long calls;
    _Atomic bool main_in_loop;
    marbles_executor_ref standin;  // never freed: the runtime keeps unretained references
    // Whether members read the run's clocks (`bases`: virtual clocks only, until detached).
    bool virtual_clocks;
    _Atomic bool members_virtual;
    long long bases[3];
    // Under the lock: work out (of it, real I/O), members blocked in known waits, held blocks.
    long long next_sequence;
    long out, io_out, blocked, held, held_sync;
    item *items;
    handoff *handoffs, **handoffs_tail;
    marbles_escape escapes[4];
    int escape_count;
    _Atomic bool io_ended;  // since the driver last looked: its answer may be on its way
};

// A member blocked in a known wait.
typedef struct wait_record {
    struct wait_record *next;
    marbles_members *members;  // NULL once its run is gone or gave up on its work
    const void *object;
    marbles_wait_info info;
    bool woken, timed_out, sleeping;
    sem_t wake;  // a sleep's: posted when its deadline comes
} wait_record;

// An object made in a run (a semaphore, group, condition; a queue its I/O uses), on which a wait
// is known, or (`sequence`: the work's) real I/O in flight, by handle.
typedef struct known_object {
    struct known_object *next;
    const void *object;
    marbles_members *members;
    long long sequence;
} known_object;

// One lock and condition for every run: a run is made for every test scheduler, and work ends rarely.
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() marbles_lock(&mutex, marbles_rank_members)
#define UNLOCK() marbles_unlock(&mutex, marbles_rank_members)
static pthread_cond_t changed;
static pthread_once_t changed_once = PTHREAD_ONCE_INIT;
static wait_record *waits;
static known_object *known;
static long long next_wait_id;
// Runs with virtual clocks alive (none: signals pass by), and I/O records (every source cancel asks).
static _Atomic long virtual_runs, io_count;
// The interposer's next condition functions: these waits must not come back through it.
static marbles_real_conditions real = {pthread_cond_wait, pthread_cond_timedwait, pthread_cond_broadcast};
MARBLES_THREAD_LOCAL marbles_member_context marbles_running = {NULL, -1};
// While the interposer waits for real for a member (its reads are real), while `changed` is made,
// and while a signal holds the lock (libdispatch's nested signals pass by).
static MARBLES_THREAD_LOCAL bool reading_real, making_condition, signalling;

// Before the interposer registers its untracked submission (or where it is not linked).
static void submit_with_dispatch(void *queue, void *context, void (*work)(void *)) {
    if (dispatch_async_f != NULL) dispatch_async_f(queue, context, work);
}
static void (*_Atomic submit_next)(void *, void *, void (*)(void *)) = submit_with_dispatch;

static void make_condition(void) {
    making_condition = true;
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &attributes);
    pthread_condattr_destroy(&attributes);
    making_condition = false;
}

// MARK: Wait records

// Under the lock: a blocked member works again (a signal, its deadline).
static void unblock(wait_record *it) {
    if (it->members == NULL) return;
    it->members->blocked -= 1;
    atomic_fetch_add_explicit(&it->members->pending, 1, memory_order_release);
}

static void time_out(wait_record *it) {
    it->timed_out = true;
    if (it->sleeping) sem_post(&it->wake);
}

// Under the lock: the run is gone or gave up on its work: its waits no longer count, sleeps end.
static void release_waits(marbles_members *members) {
    members->blocked = 0;
    for (wait_record *it = waits; it != NULL; it = it->next) {
        if (it->members != members) continue;
        it->members = NULL;
        if (!it->timed_out) time_out(it);
    }
}

// Under the lock: unlists `it`. Satisfied by a signal meant for another waiter, it counts as
// working, and that one waits on.
static void end_wait(wait_record *it, bool satisfied) {
    wait_record **link = &waits;
    while (*link != NULL && *link != it) link = &(*link)->next;
    if (*link != NULL) *link = it->next;
    if (!satisfied || it->woken || it->timed_out) return;
    wait_record *other = waits;
    while (other != NULL && !(other->object == it->object && other->woken)) other = other->next;
    unblock(it);
    if (other != NULL && other->members != NULL) {
        other->woken = false;
        other->members->blocked += 1;
        atomic_fetch_sub_explicit(&other->members->pending, 1, memory_order_release);
    }
}

// MARK: Life

// Frees a list whose nodes begin with their `next`.
static void free_list(void *head) {
    for (void *it = head, *next; it != NULL; it = next) {
        next = *(void **)it;
        free(it);
    }
}

void marbles_members_hold(marbles_members *members) { atomic_fetch_add_explicit(&members->references, 1, memory_order_relaxed); }

void marbles_members_unhold(marbles_members *members) {
    if (atomic_fetch_sub_explicit(&members->references, 1, memory_order_acq_rel) != 1) return;
    if (members->virtual_clocks) atomic_fetch_sub_explicit(&virtual_runs, 1, memory_order_acq_rel);
    LOCK();
    for (known_object **link = &known, *it; (it = *link) != NULL;) {
        if (it->members != members) link = &it->next;
        else *link = it->next, free(it);
    }
    UNLOCK();
    free_list(members->items);
    free_list(members->handoffs);
    free(members);
}

// Made on the driving thread at the run's first submission, before any other thread can know it.
static marbles_members *create(marbles_run *run) {
    marbles_members *members = marbles_allocate(sizeof(marbles_members));
    atomic_init(&members->references, 1);
    atomic_init(&members->owner, run->owner);
    members->driver = run->driver;
    members->handoffs_tail = &members->handoffs;
    pthread_once(&changed_once, make_condition);
    if (marbles_route_virtual() == run) {
        memcpy(members->bases, marbles_run_bases(run), sizeof members->bases);
        members->virtual_clocks = true;
        atomic_store_explicit(&members->members_virtual, true, memory_order_release);
        atomic_fetch_add_explicit(&virtual_runs, 1, memory_order_acq_rel);
    }
    if (run->main_in_loop) marbles_members_set_main_in_loop(members, true);
    return members;
}

marbles_members *marbles_members_here(void) {
    marbles_run *run = marbles_route_run();
    if (run == NULL) return marbles_running.members;
    if (run->members == NULL) run->members = create(run);
    return run->members;
}

// On the driving thread: the stand-in is made before the flag publishes it.
void marbles_members_set_main_in_loop(marbles_members *members, bool in_loop) {
    if (in_loop && members->standin.identity == NULL && members->driver != NULL && marbles_swift.main_standin != NULL) {
        members->standin = MARBLES_SWIFT(main_standin)(members->driver);
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
    handoff *taken = members->handoffs;
    members->handoffs = NULL;
    members->handoffs_tail = &members->handoffs;
    members->held = members->held_sync = 0;
    UNLOCK();
    // Blocks nobody will run in a loop any more go to the real main queue.
    for (handoff *it = taken, *next; it != NULL; it = next) {
        next = it->next;
        atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
        if (it->out.held) submit_next(marbles_main_queue(), it->out.context, it->out.work);
        free(it);
    }
}

void marbles_members_release(marbles_members *members) {
    // Most runs handed nothing over: no lock, no clock read.
    if (atomic_load_explicit(&members->pending, memory_order_acquire) != 0) marbles_members_abandon(members, NULL, 0);
    marbles_members_unhold(members);
}

bool marbles_members_live(marbles_members *members) { return atomic_load_explicit(&members->members_virtual, memory_order_acquire); }

void *marbles_members_pending_address(marbles_members *members) { return (void *)&members->pending; }

void *marbles_members_now_address(marbles_members *members) { return (void *)&members->now_ns; }

bool marbles_driving(marbles_members *members) {
    return members != NULL && marbles_route_members() == members && atomic_load_explicit(&members->owner, memory_order_relaxed) != NULL;
}

long long marbles_members_now(marbles_members *members) {
    marbles_run *run = marbles_route_run();
    return run != NULL && run->members == members ? marbles_run_now(run) : atomic_load_explicit(&members->now_ns, memory_order_relaxed);
}

marbles_members *marbles_member(void) {
    marbles_members *members = marbles_running.members;
    return members != NULL && !reading_real && atomic_load_explicit(&members->members_virtual, memory_order_acquire) ? members : NULL;
}

long long marbles_member_reading(marbles_members *members, int which) {
    return members->bases[which] + atomic_load_explicit(&members->now_ns, memory_order_relaxed);
}

// MARK: Work out

long long marbles_members_begin(marbles_members *members, marbles_work_kind kind, const char *label) {
    item *it = marbles_allocate(sizeof(item));
    it->row.kind = kind;
    snprintf(it->row.label, sizeof it->row.label, "%s", label);
    // Members read the instant being settled: the one this work starts at.
    it->row.submitted_ns = marbles_members_now(members);
    if (marbles_route_members() == members) atomic_store_explicit(&members->now_ns, it->row.submitted_ns, memory_order_relaxed);
    it->began_ns = marbles_real_ns(CLOCK_MONOTONIC);
    marbles_members_hold(members);
    LOCK();
    it->sequence = ++members->next_sequence;
    it->next = members->items;
    members->items = it;
    members->out += 1;
    members->io_out += kind == marbles_work_io;
    atomic_fetch_add_explicit(&members->pending, 1, memory_order_release);
    UNLOCK();
    return it->sequence;
}

void marbles_members_end(marbles_members *members, long long sequence) {
    LOCK();
    // Not found: it was abandoned (the bound passed), and no longer counts.
    for (item **link = &members->items; *link != NULL; link = &(*link)->next) {
        if ((*link)->sequence != sequence) continue;
        item *done = *link;
        *link = done->next;
        members->out -= 1;
        members->io_out -= done->row.kind == marbles_work_io;
        free(done);
        atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
        break;
    }
    real.broadcast(&changed);
    UNLOCK();
    marbles_members_unhold(members);
}

marbles_member_context marbles_members_enter(marbles_members *members, long long sequence) {
    marbles_member_context saved = marbles_running;
    marbles_running = (marbles_member_context){members, sequence};
    return saved;
}

void marbles_members_leave(marbles_member_context saved) { marbles_running = saved; }

long long marbles_members_current_sequence(void) { return marbles_running.members != NULL ? marbles_running.sequence : -1; }

typedef struct {
    marbles_members *members;
    long long sequence;
    wait_record *wait;  // a notification's wait for its group
    void *context;
    void (*work)(void *);
} wrapped;

void *marbles_members_wrap(marbles_members *members, marbles_work_kind kind, const char *label, void *context, void (*work)(void *)) {
    wrapped *it = marbles_allocate(sizeof(wrapped));
    *it = (wrapped){members, marbles_members_begin(members, kind, label), NULL, context, work};
    return it;
}

void marbles_members_run_wrapped(void *raw) {
    wrapped *it = raw;
    if (it->wait != NULL) {
        LOCK();
        end_wait(it->wait, true);
        UNLOCK();
        free(it->wait);
    }
    marbles_member_context saved = marbles_members_enter(it->members, it->sequence);
    it->work(it->context);
    marbles_members_leave(saved);
    marbles_members_end(it->members, it->sequence);
    free(it);
}

// A global concurrent queue's overcommitting twin (same QoS), where libdispatch starts a thread
// at once. On the plain one member work waited while members in known waits held the pool's
// threads, and libdispatch grows the pool about once a second. (Serial queues already overcommit.)
static void *overcommitting(void *queue) {
    long qos = dispatch_queue_get_qos_class != NULL ? dispatch_queue_get_qos_class(queue, NULL) : 0;
    return qos != 0 && dispatch_get_global_queue(qos, 0) == queue ? dispatch_get_global_queue(qos, 2) : queue;  // DISPATCH_QUEUE_OVERCOMMIT
}

const char *marbles_queue_label(void *queue) {
    const char *label = dispatch_queue_get_label != NULL ? dispatch_queue_get_label(queue) : NULL;
    return label != NULL && label[0] != 0 ? label : "(no label)";
}

void marbles_members_submit(marbles_members *members, void *queue, marbles_work_kind kind, void *context, void (*work)(void *)) {
    void *wrapped = marbles_members_wrap(members, kind, marbles_queue_label(queue), context, work);
    submit_next(overcommitting(queue), wrapped, marbles_members_run_wrapped);
}

void marbles_members_submit_untracked(void *queue, void *context, void (*work)(void *)) { submit_next(queue, context, work); }

void marbles_register_submit(void (*submit)(void *, void *, void (*)(void *))) { submit_next = submit; }

void *marbles_main_queue(void) { return _dispatch_main_q; }

// MARK: Hand-offs to the driver

// Under the lock.
static void push(marbles_members *members, handoff *it) {
    *members->handoffs_tail = it;
    members->handoffs_tail = &it->next;
    atomic_fetch_add_explicit(&members->pending, 1, memory_order_release);
}

void marbles_members_hand(marbles_members *members, long long remaining_ns, void *queue, void *context, void (*work)(void *)) {
    remaining_ns = remaining_ns < 0 ? 0 : remaining_ns;
    bool is_main = queue != NULL && queue == marbles_main_queue();
    void *owner = atomic_load_explicit(&members->owner, memory_order_relaxed);
    if (marbles_driving(members)) return MARBLES_SWIFT(timer)(owner, queue, is_main, remaining_ns, context, work);
    handoff *it = marbles_allocate(sizeof(handoff));
    it->out = (marbles_handoff){marbles_members_now(members) + remaining_ns, -1, queue, context, work, is_main, false};
    LOCK();
    push(members, it);
    UNLOCK();
}

bool marbles_members_hold_main(marbles_members *members, void *context, void (*work)(void *), bool sync) {
    if (!atomic_load_explicit(&members->main_in_loop, memory_order_acquire)) return false;
    handoff *it = marbles_allocate(sizeof(handoff));
    long long sequence = marbles_running.members == members ? marbles_running.sequence : -1;
    *it = (handoff){NULL, {-1, sequence, marbles_main_queue(), context, work, true, true}, sync};
    LOCK();
    bool held = members->driver != NULL && atomic_load_explicit(&members->main_in_loop, memory_order_relaxed);
    if (held) {
        push(members, it);
        members->held += 1;
        members->held_sync += sync;
        // A settling driver looks: a block whose submitter waits cannot wait for the work out.
        real.broadcast(&changed);
    }
    UNLOCK();
    if (!held) free(it);
    return held;
}

long marbles_members_take(marbles_members *members, marbles_handoff *buffer, long capacity) {
    LOCK();
    long count = 0;
    for (; members->handoffs != NULL && count < capacity; count++) {
        handoff *it = members->handoffs;
        members->handoffs = it->next;
        buffer[count] = it->out;
        members->held -= it->out.held;
        members->held_sync -= it->sync;
        free(it);
    }
    if (members->handoffs == NULL) members->handoffs_tail = &members->handoffs;
    atomic_fetch_sub_explicit(&members->pending, count, memory_order_release);
    UNLOCK();
    return count;
}

bool marbles_members_return_job(void *job) {
    marbles_members *members = marbles_running.members;
    if (members == NULL) return false;
    LOCK();
    void *driver = members->driver;
    members->calls += driver != NULL;
    UNLOCK();
    if (driver == NULL) return false;
    MARBLES_SWIFT(returned)(driver, job);
    LOCK();
    if (--members->calls == 0) real.broadcast(&changed);
    UNLOCK();
    return true;
}

marbles_executor_ref marbles_members_running_standin(void) {
    marbles_members *members = marbles_running.members;
    bool in_loop = members != NULL && atomic_load_explicit(&members->main_in_loop, memory_order_acquire);
    return in_loop ? members->standin : (marbles_executor_ref){NULL, NULL};
}

void marbles_members_note_escape(marbles_members *members, const char *what, const char *place, ...) {
    long long at = marbles_members_now(members);
    LOCK();
    if (members->escape_count < 4) {
        marbles_escape *it = &members->escapes[members->escape_count++];
        snprintf(it->what, sizeof it->what, "%s", what);
        va_list arguments;
        va_start(arguments, place);
        vsnprintf(it->place, sizeof it->place, place, arguments);
        va_end(arguments);
        it->at_ns = at;
    }
    UNLOCK();
}

long marbles_members_take_escapes(marbles_members *members, marbles_escape *buffer, long capacity) {
    LOCK();
    long count = members->escape_count < capacity ? members->escape_count : capacity;
    for (long i = 0; i < count; i++) buffer[i] = members->escapes[i];
    members->escape_count = 0;
    UNLOCK();
    return count;
}

// MARK: Settling

static marbles_members_state state_of(marbles_members *members) {
    return (marbles_members_state){members->out - members->blocked, members->io_out, members->held, members->held_sync, members->next_sequence};
}

marbles_members_state marbles_members_watch(marbles_members *members, const marbles_members_state *seen, long long timeout_ns) {
    struct timespec deadline = marbles_timespec_of(marbles_real_ns(CLOCK_MONOTONIC) + timeout_ns);
    LOCK();
    marbles_members_state now = state_of(members);
    while (seen != NULL && memcmp(&now, seen, sizeof now) == 0 && real.timedwait(&changed, &mutex, &deadline) != ETIMEDOUT)
        now = state_of(members);
    UNLOCK();
    return now;
}

long marbles_members_abandon(marbles_members *members, marbles_overdue *buffer, long capacity) {
    long long now = marbles_real_ns(CLOCK_MONOTONIC);
    LOCK();
    long count = 0;
    for (item *it = members->items, *next; it != NULL; it = next, count++) {
        next = it->next;
        if (buffer != NULL && count < capacity) {
            buffer[count] = it->row;
            buffer[count].age_ns = now - it->began_ns;
        }
        free(it);
    }
    members->items = NULL;
    atomic_fetch_sub_explicit(&members->pending, members->out - members->blocked, memory_order_release);
    members->out = members->io_out = 0;
    release_waits(members);
    UNLOCK();
    return count;
}

long marbles_members_blocked(marbles_members *members, marbles_wait_info *buffer, long capacity) {
    LOCK();
    // Not settled (a member works, or a hand-off is still to be taken): no deadlock.
    long count = members->out - members->blocked > 0 || members->handoffs != NULL ? -1 : members->blocked;
    long filled = 0;
    for (wait_record *it = waits; it != NULL && buffer != NULL && filled < capacity; it = it->next) {
        if (it->members == members && !it->woken && !it->timed_out) buffer[filled++] = it->info;
    }
    UNLOCK();
    return count;
}

// MARK: Blocks, by their ABI

void *marbles_copy_block(void *block) { return _Block_copy != NULL ? _Block_copy(block) : NULL; }

void marbles_release_block(void *block) {
    if (block != NULL && _Block_release != NULL) _Block_release(block);
}

void marbles_call_block(void *block) {
    struct { void *isa; int flags, reserved; void (*invoke)(void *); } *layout = block;
    layout->invoke(block);
}

void marbles_invoke_block(void *block) {
    marbles_call_block(block);
    marbles_release_block(block);
}

// MARK: Known waits

void marbles_register_real_conditions(marbles_real_conditions conditions) { real = conditions; }

// Under the lock: an object made in a run (`sequence` 0), or real I/O by handle; unlisted with `take`.
static known_object *find_known(const void *object, long long sequence, bool take) {
    for (known_object **link = &known; *link != NULL; link = &(*link)->next) {
        known_object *it = *link;
        if (it->object != object || (it->sequence != 0) != (sequence != 0)) continue;
        if (take) *link = it->next;
        return it;
    }
    return NULL;
}

static void add_known(const void *object, marbles_members *members, long long sequence) {
    known_object *it = marbles_allocate(sizeof(known_object));
    *it = (known_object){known, object, members, sequence};
    known = it;
}

void *marbles_note_object(void *object) {
    marbles_members *members = object != NULL && !making_condition ? marbles_members_here() : NULL;
    if (members == NULL || !members->virtual_clocks) return object;
    LOCK();
    add_known(object, members, 0);
    UNLOCK();
    return object;
}

void marbles_forget_object(const void *object) {
    if (!marbles_waits_possible()) return;
    LOCK();
    free(find_known(object, 0, true));
    UNLOCK();
}

bool marbles_waits_possible(void) { return atomic_load_explicit(&virtual_runs, memory_order_acquire) > 0 && !signalling; }

// A driving thread publishes its now before it wakes members (read outside the lock: it calls Swift).
static void publish_now_if_driving(void) {
    marbles_run *run = marbles_route_virtual();
    if (run != NULL && run->members != NULL) atomic_store_explicit(&run->members->now_ns, marbles_run_now(run), memory_order_relaxed);
}

// A wait's deadline, on the driving thread at its virtual instant.
static void deadline_came(void *context) {
    publish_now_if_driving();
    LOCK();
    wait_record *it = waits;
    while (it != NULL && it->info.id != (long long)(intptr_t)context) it = it->next;
    if (it != NULL && !it->woken && !it->timed_out) unblock(it), time_out(it);
    UNLOCK();
}

// Under the lock: lists `it`, a wait of `members`' work, and counts it blocked.
static void list_wait(marbles_members *members, wait_record *it, marbles_wait_kind kind, const void *object, long long remaining_ns) {
    long long now = atomic_load_explicit(&members->now_ns, memory_order_relaxed);
    it->members = members;
    it->object = object;
    it->info = (marbles_wait_info){++next_wait_id, now, remaining_ns < 0 ? -1 : now + remaining_ns, kind, marbles_work_block, ""};
    it->next = waits;
    waits = it;
    members->blocked += 1;
}

intptr_t marbles_wake_waiters(void *object, long count, intptr_t (*signal)(void *)) {
    if (!marbles_waits_possible()) return signal != NULL ? signal(object) : 0;
    publish_now_if_driving();
    LOCK();
    signalling = true;
    // Oldest first: the list is newest first, so wake from its end.
    for (; count != 0; count -= count > 0) {
        wait_record *oldest = NULL;
        for (wait_record *it = waits; it != NULL; it = it->next) {
            if (it->object == object && !it->woken && !it->timed_out) oldest = it;
        }
        if (oldest == NULL) break;
        oldest->woken = true;
        unblock(oldest);
    }
    real.broadcast(&changed);
    intptr_t result = signal != NULL ? signal(object) : 0;
    signalling = false;
    UNLOCK();
    return result;
}

void *marbles_members_wrap_notification(marbles_members *members, const void *group, void *context, void (*work)(void *)) {
    wrapped *it = marbles_members_wrap(members, marbles_work_block, "a group's notification", context, work);
    if (!members->virtual_clocks) return it;
    it->wait = marbles_allocate(sizeof(wait_record));
    LOCK();
    list_wait(members, it->wait, marbles_wait_group, group, -1);
    atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
    snprintf(it->wait->info.member, sizeof it->wait->info.member, "a group's notification");
    UNLOCK();
    return it;
}

// The calling member waits for real on what the run cannot know (`what`), or no longer (NULL).
static void waits_for_real(const char *what) {
    marbles_members *members = marbles_running.members;
    if (members == NULL) return;
    LOCK();
    for (item *it = members->items; it != NULL; it = it->next) {
        if (it->sequence == marbles_running.sequence) it->row.waits_on = what;
    }
    UNLOCK();
}

// MARK: Real I/O

void marbles_io_begin(const void *handle, const void *queue, const char *label) {
    marbles_members *members = marbles_members_here();
    LOCK();
    known_object *made = queue != NULL ? find_known(queue, 0, false) : NULL;
    if (members == NULL && made != NULL) members = made->members;
    if (members != NULL && queue != NULL && (made == NULL || made->members != members)) add_known(queue, members, 0);
    UNLOCK();
    if (members == NULL) return;
    long long sequence = marbles_members_begin(members, marbles_work_io, label);
    LOCK();
    add_known(handle, members, sequence);
    atomic_fetch_add_explicit(&io_count, 1, memory_order_release);
    UNLOCK();
}

void marbles_io_end(const void *handle) {
    if (atomic_load_explicit(&io_count, memory_order_acquire) == 0) return;
    LOCK();
    known_object *found = find_known(handle, 1, true);
    if (found != NULL) atomic_fetch_sub_explicit(&io_count, 1, memory_order_release);
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

// MARK: A member's wait

enum { slice_ns = 1000000 };  // how often a timed wait looks whether its virtual deadline came

bool marbles_wait(
    marbles_wait_kind kind, const void *object, long long remaining_ns, bool (*try_acquire)(const void *), const char *unknown,
    bool (*attempt)(void *, long long), void *argument) {
    marbles_members *members = marbles_member();
    if (members == NULL) return false;
    wait_record record = {.sleeping = kind == marbles_wait_sleep};
    if (record.sleeping) sem_init(&record.wake, 0, 0);
    handoff *deadline = remaining_ns >= 0 ? marbles_allocate(sizeof(handoff)) : NULL;
    LOCK();
    known_object *made = record.sleeping ? NULL : find_known(object, 0, false);
    bool known = record.sleeping || (made != NULL && made->members == members);
    bool acquired = known && try_acquire != NULL && try_acquire(object);
    if (known && !acquired) {
        list_wait(members, &record, kind, object, remaining_ns);
        // The deadline first: the driver, reading `pending` unlocked, must never miss both.
        if (deadline != NULL) {
            deadline->out = (marbles_handoff){record.info.deadline_ns, -1, NULL, (void *)(intptr_t)record.info.id, deadline_came, false, false};
            push(members, deadline);
            deadline = NULL;
        }
        atomic_fetch_sub_explicit(&members->pending, 1, memory_order_release);
        for (item *work = members->items; work != NULL; work = work->next) {
            if (work->sequence != marbles_running.sequence) continue;
            record.info.member_kind = work->row.kind;
            snprintf(record.info.member, sizeof record.info.member, "%s", work->row.label);
        }
        real.broadcast(&changed);
    }
    UNLOCK();
    free(deadline);
    bool satisfied = acquired;
    if (known && record.sleeping) {
        while (sem_wait(&record.wake) != 0 && errno == EINTR) {}
    } else if (!acquired) {
        // libdispatch and glibc read the clock inside their own waits: real while this one is.
        reading_real = true;
        if (!known) waits_for_real(unknown);
        for (;;) {
            satisfied = attempt(argument, known && remaining_ns >= 0 ? slice_ns : remaining_ns);
            if (satisfied || !known) break;
            LOCK();
            bool woken = record.woken, timed_out = record.timed_out;
            UNLOCK();
            // glibc can spend a signal on a slice that is timing out: woken, the wait returns as
            // signalled and its caller rechecks its predicate (sliced on, an NSCondition wait
            // lost its signal 1 run in 8).
            satisfied = woken && kind == marbles_wait_condition;
            if (satisfied || timed_out) break;
        }
        if (!known) waits_for_real(NULL);
        reading_real = false;
    }
    if (known && !acquired) {
        LOCK();
        end_wait(&record, satisfied && !record.sleeping);
        UNLOCK();
    }
    if (record.sleeping) sem_destroy(&record.wake);
    return satisfied || record.sleeping;
}
