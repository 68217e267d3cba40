// The C layer's own view of a run, for the hooks and the interposers (included by path; Swift
// sees CRuntimeHooks.h). Members and known waits: docs/DESIGN.md, "One bubble".
#ifndef MARBLES_RUN_H
#define MARBLES_RUN_H
#define _GNU_SOURCE 1  // before any system header (RTLD_NEXT, dladdr)
#include "CRuntimeHooks.h"
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Linked into executables, never dlopened: initial-exec thread-locals, one load off the thread
// pointer (the route is read at every clock read, job and sleep).
#define MARBLES_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))

// MARK: Locks, in order: a list lock (the timer registry's) before the members lock (a leaf);
// nothing calls into Swift with either held. Debug builds check both rules.
enum { marbles_rank_list = 1, marbles_rank_members = 2 };
extern MARBLES_THREAD_LOCAL unsigned marbles_held_ranks;

static inline void marbles_lock(pthread_mutex_t *mutex, unsigned rank) {
    assert((marbles_held_ranks & ~(rank - 1)) == 0 && "lock order: a list lock, then the members lock");
    pthread_mutex_lock(mutex);
    marbles_held_ranks |= rank;
}

static inline void marbles_unlock(pthread_mutex_t *mutex, unsigned rank) {
    marbles_held_ranks &= ~rank;
    pthread_mutex_unlock(mutex);
}

static inline long long marbles_ns_of(const struct timespec *ts) { return (long long)ts->tv_sec * 1000000000 + ts->tv_nsec; }
static inline struct timespec marbles_timespec_of(long long ns) { return (struct timespec){(time_t)(ns / 1000000000), (long)(ns % 1000000000)}; }

/// Zeroed memory for a record (out of memory: abort, as Swift would).
static inline void *marbles_allocate(size_t size) {
    void *it = calloc(1, size);
    if (it == NULL) abort();
    return it;
}

/// The calls into Swift, registered by `marbles_install`; call them through `MARBLES_SWIFT`.
extern marbles_ops marbles_swift;
#define MARBLES_SWIFT(call) (assert(marbles_held_ranks == 0 && "a call into Swift under a lock"), marbles_swift.call)

// MARK: Route

/// The calling thread's driver, and its cached main-actor stand-in.
void *marbles_route_driver(void);
marbles_executor_ref *marbles_route_standin(void);
/// The calling thread's run (virtual clocks or not), its run when its clocks are virtual, and
/// that run's members (NULL: none yet).
marbles_run *marbles_route_run(void);
marbles_run *marbles_route_virtual(void);
marbles_members *marbles_route_members(void);
/// A run's clock bases, taken at its first virtual reading (on the driving thread).
void marbles_run_set_bases(marbles_run *run);
static inline const long long *marbles_run_bases(marbles_run *run) {
    if (!run->bases_set) marbles_run_set_bases(run);
    return run->bases;
}
/// A run's virtual now (on its driving thread; a run with no scheduler, the probe's, stands at 0).
static inline long long marbles_run_now(const marbles_run *run) {
    return run->scheduler != NULL ? MARBLES_SWIFT(now_ns)(run->scheduler) : 0;
}
/// A run's reading of clock `which` (0 realtime, 1 monotonic, 2 boottime) on its driving thread.
static inline long long marbles_run_reading(marbles_run *run, int which) { return marbles_run_bases(run)[which] + marbles_run_now(run); }

// MARK: Members

/// Where work submitted on this thread joins: the route's run's members (made now if not yet),
/// or those of the member work running here; NULL: nowhere.
marbles_members *marbles_members_here(void);
typedef struct {
    marbles_members *members;
    long long sequence;
} marbles_member_context;
/// The member work running on this thread (read inline on the clock's path; sequence -1: none).
extern MARBLES_THREAD_LOCAL marbles_member_context marbles_running;
/// The calling thread's members when it is a member of a run with virtual clocks (not in a real wait).
marbles_members *marbles_member(void);
/// Whether `members`' run still reads virtual clocks (not yet detached).
bool marbles_members_live(marbles_members *members);
/// Whether the calling thread drives `members`' run while its runtime lives (with virtual clocks).
bool marbles_driving(marbles_members *members);
static inline bool marbles_driving_virtually(marbles_members *members) { return marbles_route_virtual() != NULL && marbles_driving(members); }
/// Virtual now where the calling thread stands (the driver's, or the instant being settled on a
/// member). Read it before taking a lock: it may call into Swift.
long long marbles_members_now(marbles_members *members);
/// A member's reading of clock `which` (0 realtime, 1 monotonic, 2 boottime).
long long marbles_member_reading(marbles_members *members, int which);

/// One piece of member work run elsewhere: begin (out from now), enter and leave the thread that
/// runs it, end. `wrap` makes a context for `run_wrapped`, which does all of it.
long long marbles_members_begin(marbles_members *members, marbles_work_kind kind, const char *label);
void marbles_members_end(marbles_members *members, long long sequence);
marbles_member_context marbles_members_enter(marbles_members *members, long long sequence);
void marbles_members_leave(marbles_member_context saved);
void *marbles_members_wrap(marbles_members *members, marbles_work_kind kind, const char *label, void *context, void (*work)(void *));
void marbles_members_run_wrapped(void *wrapped);
/// A group's notification as member work that waits on `group` until it empties.
void *marbles_members_wrap_notification(marbles_members *members, const void *group, void *context, void (*work)(void *));
/// Keeps the members object alive for a holder that outlives the run, and lets it go.
void marbles_members_hold(marbles_members *members);
void marbles_members_unhold(marbles_members *members);

/// Hands `work(context)` to the driver, due `remaining_ns` after now where the caller stands, on
/// `queue` (NULL: on the driving thread): at once on the driving thread, else at its next settle.
/// With no lock held (it may read the driver's now).
void marbles_members_hand(marbles_members *members, long long remaining_ns, void *queue, void *context, void (*work)(void *));
/// A main-queue block from a member, held for the driver's loop when its test runs on the main
/// actor (true); `sync`: the submitter waits for it (`DispatchQueue.main.sync`).
bool marbles_members_hold_main(marbles_members *members, void *context, void (*work)(void *), bool sync);
/// A job a member enqueued for the global executor: handed to its driver while attached (true).
bool marbles_members_return_job(void *job);
/// The main-actor stand-in of the member work running on this thread, in a test on the main actor.
marbles_executor_ref marbles_members_running_standin(void);
/// Notes work that stays on real time inside the run (`what`), and where (`place`, a printf format).
void marbles_members_note_escape(marbles_members *members, const char *what, const char *place, ...) __attribute__((format(printf, 3, 4)));
/// A Dispatch queue's label, or "(no label)".
const char *marbles_queue_label(void *queue);

// MARK: Waits

/// The real condition functions the members' own waits use (the interposer's next ones).
typedef struct {
    int (*wait)(pthread_cond_t *, pthread_mutex_t *);
    int (*timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
    int (*broadcast)(pthread_cond_t *);
} marbles_real_conditions;
void marbles_register_real_conditions(marbles_real_conditions conditions);
/// Notes a semaphore, group or condition made in a run (a wait on it is known; NULL: none), and forgets one.
void *marbles_note_object(void *object);
void marbles_forget_object(const void *object);
/// Whether signals must look for member waiters (a run with virtual clocks is alive).
bool marbles_waits_possible(void);
/// Wakes up to `count` (-1: all) member waiters on `object`, which count as working from now, and
/// calls `signal(object)` (if any) under the same lock: a waiter either saw the signal or is found.
intptr_t marbles_wake_waiters(void *object, long count, intptr_t (*signal)(void *));
/// A member's wait on `object` (a sleep: NULL), at most `remaining_ns` of virtual time (< 0: no
/// deadline). Known (made in the run): `try_acquire` under the lock, then `attempt(argument,
/// slice_ns)` (a real wait of at most `slice_ns`, < 0: no limit) in slices until satisfied or the
/// virtual deadline, counted blocked meanwhile. Unknown: one real `attempt`, which holds time
/// still and names `unknown` in the bound's report. Whether satisfied; false when no member.
bool marbles_wait(
    marbles_wait_kind kind, const void *object, long long remaining_ns, bool (*try_acquire)(const void *), const char *unknown,
    bool (*attempt)(void *argument, long long slice_ns), void *argument);
/// Real I/O of the calling thread's run (by `handle`) begins and ends; while out, time stands
/// still. I/O begun later on `queue` (where its events are handled) is the run's too.
void marbles_io_begin(const void *handle, const void *queue, const char *label);
void marbles_io_end(const void *handle);

// MARK: Blocks and Dispatch

/// Blocks by their ABI: copy, release, call (without releasing), invoke (call, then release).
void *marbles_copy_block(void *block);
void marbles_release_block(void *block);
void marbles_call_block(void *block);
void marbles_invoke_block(void *block);
/// The interposer's untracked `dispatch_async_f`, which member work is submitted through.
void marbles_register_submit(void (*submit)(void *, void *, void (*)(void *)));
/// Called once by the interposer's constructor: what its `clock_gettime` chains to (a symbol or a
/// path), and its real clock, which `marbles_real_ns` reads.
void marbles_clock_interposer_register(const char *next_name, int (*real)(clockid_t, struct timespec *));

#endif
