// Work a run hands to other threads (Linux): Dispatch's async, after, sync and group forms, and
// Foundation's `Thread`. Each becomes member work (Members.c), a virtual wake-up, or a main-queue
// block for the driver's loop; the Swift runtime's and libdispatch's own calls pass through.
#include "InterposerShared.h"

#if defined(__linux__)
INTERPOSED(void, dispatch_async, void *queue, void *block);
INTERPOSED(void, dispatch_async_f, void *queue, void *context, void (*work)(void *));
INTERPOSED(void, dispatch_sync, void *queue, void *block);
INTERPOSED(void, dispatch_sync_f, void *queue, void *context, void (*work)(void *));
INTERPOSED(void, dispatch_after, uint64_t when, void *queue, void *block);
INTERPOSED(void, dispatch_after_f, uint64_t when, void *queue, void *context, void (*work)(void *));
INTERPOSED(void, dispatch_group_async, void *group, void *queue, void *block);
INTERPOSED(void, dispatch_group_notify, void *group, void *queue, void *block);
INTERPOSED(int, pthread_create, pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument);
// The `_f` form a notification goes through when it is ours (not interposed).
typedef void (*group_f_fn)(void *group, void *queue, void *context, void (*work)(void *));
static _Atomic(group_f_fn) next_group_notify_f;
void dispatch_group_enter(void *group);
void dispatch_group_leave(void *group);

void marbles_ip_submit_untracked(void *queue, void *context, void (*work)(void *)) {
    NEXT_OF(dispatch_async_f)(queue, context, work);
}

// Work for `queue`: the main queue's runs in the driver's loop (from the driving thread, or held
// from a member in a test on the main actor); anything else is member work on its queue.
static void submit(marbles_members *members, void *queue, marbles_work_kind kind, void *context, void (*work)(void *)) {
    if (queue == marbles_ip_main_queue && marbles_driving(members)) return marbles_members_hand(members, 0, queue, context, work);
    bool held = queue == marbles_ip_main_queue && marbles_route_members() != members && marbles_members_hold_main(members, context, work, false);
    if (!held) marbles_members_submit(members, queue, kind, context, work);
}

void dispatch_async(void *queue, void *block) {
    marbles_members *members = marbles_ip_members_for(CALLER);
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy != NULL) return submit(members, queue, marbles_work_block, copy, marbles_invoke_block);
    NEXT_OF(dispatch_async)(queue, block);
}

void dispatch_async_f(void *queue, void *context, void (*work)(void *)) {
    marbles_members *members = marbles_ip_members_for(CALLER);
    if (members != NULL) return submit(members, queue, marbles_work_function, context, work);
    marbles_ip_submit_untracked(queue, context, work);
}

// `DispatchQueue.main.sync` from a member in a test on the main actor: the driver (the main
// queue's thread, waiting for this work) runs it at once in its loop; the caller waits for that.
typedef struct {
    void *context;
    void (*work)(void *);
    sem_t done;
} sync_call;

static void run_sync_call(void *raw) {
    sync_call *call = raw;
    call->work(call->context);
    sem_post(&call->done);
}

static bool sync_in_main_loop(void *queue, void *context, void (*work)(void *), uintptr_t caller) {
    marbles_members *members = queue == marbles_ip_main_queue ? marbles_ip_members_for(caller) : NULL;
    if (members == NULL || marbles_route_members() == members) return false;
    sync_call call = {context, work};
    sem_init(&call.done, 0, 0);
    bool held = marbles_members_hold_main(members, &call, run_sync_call, true);
    while (held && sem_wait(&call.done) != 0 && errno == EINTR) {}
    sem_destroy(&call.done);
    return held;
}

void dispatch_sync(void *queue, void *block) {
    if (sync_in_main_loop(queue, block, marbles_call_block, CALLER)) return;
    NEXT_OF(dispatch_sync)(queue, block);
}

void dispatch_sync_f(void *queue, void *context, void (*work)(void *)) {
    if (sync_in_main_loop(queue, context, work, CALLER)) return;
    NEXT_OF(dispatch_sync_f)(queue, context, work);
}

// Work that keeps a Dispatch object until it ran: a timer's queue (as libdispatch's own timers
// keep theirs), or the group it then leaves.
typedef struct {
    void *object, *context;
    void (*work)(void *);
    bool leave;
} keeping;

static void run_keeping(void *raw) {
    keeping it = *(keeping *)raw;
    free(raw);
    it.work(it.context);
    if (it.leave) dispatch_group_leave(it.object);
    dispatch_release(it.object);
}

static void *keep(void *object, void *context, void (*work)(void *), bool leave) {
    keeping *it = marbles_allocate(sizeof(keeping));
    *it = (keeping){object, context, work, leave};
    dispatch_retain(object);
    return it;
}

// A timer from the run: a virtual wake-up where its clock can be virtual, else real but member
// work; the main queue's on the driving thread with real clocks goes untracked as an escape
// (tracked, it could only stall the run: the driver is the thread the main queue waits for).
static void after(marbles_members *members, uint64_t when, void *queue, void *context, void (*work)(void *)) {
    long long remaining;
    if (marbles_ip_virtual_remaining(members, when, &remaining)) {
        if (queue == marbles_ip_main_queue) return marbles_members_hand(members, remaining, queue, context, work);
        return marbles_members_hand(members, remaining, queue, keep(queue, context, work, false), run_keeping);
    }
    dispatch_after_f_fn next = NEXT_OF(dispatch_after_f);
    if (queue == marbles_ip_main_queue && marbles_route_members() == members) {
        marbles_members_note_escape(members, "a Dispatch timer", "on queue '%s' runs on real time", marbles_queue_label(queue));
        return next(when, queue, context, work);
    }
    next(when, queue, marbles_members_wrap(members, marbles_work_timer, "a timer", context, work), marbles_members_run_wrapped);
}

void dispatch_after(uint64_t when, void *queue, void *block) {
    marbles_members *members = marbles_ip_members_for(CALLER);
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy != NULL) return after(members, when, queue, copy, marbles_invoke_block);
    NEXT_OF(dispatch_after)(when, queue, block);
}

// The default executor hands a `Task.sleep` (no executor preference, a default actor) to Dispatch
// here, from libswift_Concurrency: the deadline in ns on CLOCK_MONOTONIC, with the top bit set
// for `ContinuousClock`. Anyone else's is a timer from the run.
void dispatch_after_f(uint64_t when, void *queue, void *context, void (*work)(void *)) {
    uintptr_t caller = CALLER;
    marbles_members *members = marbles_ip_members_for(caller);
    if (members != NULL) return after(members, when, queue, context, work);
    marbles_run *run = marbles_route_virtual();
    if (run != NULL && run->owner != NULL && context != NULL && marbles_ip_from_concurrency(caller)) {
        bool continuous = (when >> 63) != 0;
        long long remaining = (long long)(when & ~(1ULL << 63)) - marbles_run_reading(run, continuous ? 2 : 1);
        return MARBLES_SWIFT(sleep)(run->owner, context, remaining, continuous ? marbles_clock_continuous : marbles_clock_suspending);
    }
    NEXT_OF(dispatch_after_f)(when, queue, context, work);
}

typedef struct {
    marbles_members *members;
    long long sequence;
    void *(*start)(void *);
    void *argument;
} tracked_thread;

static void *run_tracked_thread(void *raw) {
    tracked_thread t = *(tracked_thread *)raw;
    free(raw);
    marbles_member_context saved = marbles_members_enter(t.members, t.sequence);
    void *result = t.start(t.argument);
    marbles_members_leave(saved);
    marbles_members_end(t.members, t.sequence);
    return result;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    pthread_create_fn next = NEXT_OF(pthread_create);
    marbles_members *members = marbles_members_here();
    // Only Foundation's `Thread`: libdispatch and the runtime start threads of their own.
    if (members == NULL || !marbles_ip_from_foundation(CALLER)) return next(thread, attributes, start, argument);
    tracked_thread *t = marbles_allocate(sizeof(tracked_thread));
    *t = (tracked_thread){members, marbles_members_begin(members, marbles_work_thread, "a Thread"), start, argument};
    int status = next(thread, attributes, run_tracked_thread, t);
    if (status != 0) {
        marbles_members_end(members, t->sequence);
        free(t);
    }
    return status;
}

// `DispatchQueue.async(group:)` and `DispatchGroup.notify(queue:)`: a notification is out, waiting
// on its group, until it has run; a block leaves through our `dispatch_group_leave` (Waits.c), so
// a member waiting on the group works again before the block counts as done.

static bool group_tracked(void *group, void *queue, void *block, bool notify, uintptr_t caller) {
    // The main queue's notification stays as it was: the loop does not run group work.
    marbles_members *members = queue != marbles_ip_main_queue ? marbles_ip_members_for(caller) : NULL;
    void *copy = members != NULL ? marbles_copy_block(block) : NULL;
    if (copy == NULL) return false;
    if (notify) {
        group_f_fn next = NEXT(next_group_notify_f, group_f_fn, "dispatch_group_notify_f", NULL);
        next(group, queue, marbles_members_wrap_notification(members, group, copy, marbles_invoke_block), marbles_members_run_wrapped);
        return true;
    }
    dispatch_group_enter(group);
    marbles_members_submit(members, queue, marbles_work_block, keep(group, copy, marbles_invoke_block, true), run_keeping);
    return true;
}

void dispatch_group_async(void *group, void *queue, void *block) {
    if (group_tracked(group, queue, block, false, CALLER)) return;
    NEXT_OF(dispatch_group_async)(group, queue, block);
}

void dispatch_group_notify(void *group, void *queue, void *block) {
    if (group_tracked(group, queue, block, true, CALLER)) return;
    NEXT_OF(dispatch_group_notify)(group, queue, block);
}
#endif
