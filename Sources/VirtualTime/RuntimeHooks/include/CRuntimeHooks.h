// What Swift (MarblesRuntime) sees of the C layer; the C files' own view is `Run.h`. Layers and
// lock order: docs/DESIGN.md, "The C layer".
#ifndef MARBLES_CRUNTIMEHOOKS_H
#define MARBLES_CRUNTIMEHOOKS_H
#include <stdbool.h>
#include <stdint.h>

/// The clock a sleep or a reading is on, as the Swift runtime numbers them.
typedef enum marbles_clock_kind { marbles_clock_continuous = 1, marbles_clock_suspending = 2 } marbles_clock_kind;

/// A serial executor reference as the runtime passes it: the object and its witness table.
typedef struct {
    void *_Nullable identity;
    void *_Nullable witness;
} marbles_executor_ref;

/// Every call C makes into Swift (never under a C lock), registered once. `driver`: a route's
/// executor; `owner`: a run's runtime; `scheduler`: a run's virtual-time scheduler.
typedef struct {
    /// A job enqueued on a driving thread: for the global executor, and for the main actor when
    /// the driving thread is the main thread.
    void (*_Nonnull global)(void *_Nonnull driver, void *_Nonnull job);
    void (*_Nonnull main)(void *_Nonnull driver, void *_Nonnull job);
    /// A job the runtime was asked to run after a delay (`is_deadline` false: `remaining_ns` is
    /// exact) or at a deadline (`remaining_ns`: the deadline minus the clock's time now).
    void (*_Nonnull delayed)(void *_Nonnull driver, void *_Nonnull job, long long remaining_ns, bool is_deadline, marbles_clock_kind clock);
    /// A driving thread that is not the main thread enqueued a main-actor job (it goes to the main queue).
    void (*_Nonnull main_escape)(void *_Nonnull driver);
    /// The driver's main-actor stand-in, made the first time the runtime asks on its thread.
    marbles_executor_ref (*_Nonnull main_standin)(void *_Nonnull driver);
    /// A job that a member on another thread enqueued for the global executor.
    void (*_Nonnull returned)(void *_Nonnull driver, void *_Nonnull job);
    /// The scheduler's virtual time, in ns (NULL scheduler: 0).
    long long (*_Nonnull now_ns)(void *_Nullable scheduler);
    /// `work(context)` is due `remaining_ns` from virtual now on `queue` (`is_main`: the main
    /// queue; NULL: run on the driving thread, a timer source's wake-up or a wait's deadline).
    void (*_Nonnull timer)(
        void *_Nonnull owner, void *_Nullable queue, bool is_main, long long remaining_ns, void *_Nullable context,
        void (*_Nonnull work)(void *_Nullable));
    /// A sleeper the default executor handed to Dispatch on the driving thread.
    void (*_Nonnull sleep)(void *_Nonnull owner, void *_Nonnull job, long long remaining_ns, marbles_clock_kind clock);
} marbles_ops;

/// Registers the ops and installs the Swift runtime's hooks once per process, each chained to the
/// one before; false without `swift_task_enqueueGlobal_hook`. Installed, as bits: 1 global, 2 main
/// enqueue, 4 delay, 8 deadline, 16 get main executor.
bool marbles_install(marbles_ops ops);
int marbles_runtime_hooks_installed(void);

typedef struct marbles_members marbles_members;

/// One run, owned by Swift's `VirtualClocks`: its clocks as the interposer answers them on the
/// driving thread, the code's reads, and its members (made at the first submission).
typedef struct marbles_run {
    /// The scheduler; the runtime (timers and sleeps go to it) and its executor (NULL: a probe).
    void *_Nullable scheduler, *_Nullable owner, *_Nullable driver;
    /// Whether the driver runs main-actor work in its loop (its test runs on the main actor);
    /// with real clocks (MARBLES_PORTABLE=1), whether the code's reads are counted all the same.
    bool main_in_loop, count_real_reads;
    /// A clock's reading is its base plus `now_ns(scheduler)`. The bases (CLOCK_REALTIME for
    /// `Date()`, CLOCK_MONOTONIC, CLOCK_BOOTTIME) are taken at the first reading: each clock's real
    /// time (the date: `start_date_ns` when `has_start_date`) at virtual time `origin_ns`.
    bool bases_set, has_start_date;
    long long start_date_ns, origin_ns, bases[3];
    /// Virtual readings answered, and the code's by clock: `Date()`, `SuspendingClock.now`,
    /// `ContinuousClock.now` and libdispatch's (`DispatchTime.now()`).
    unsigned long long reads, code_reads[4];
    /// A busy wait: a job that reads a clock in a loop while virtual time stands still reads at
    /// `spin_now_ns`; past the limit its reading moves with real time from `spin_real_ns`, and
    /// `spins` counts it (`spin_clock`: which of `code_reads`; `spin_at_ns`: the instant).
    long long spin_now_ns, spin_real_ns, spin_virtual_ns, spin_at_ns;
    unsigned long long spin_reads, spins;
    int spin_clock;
    marbles_members *_Nullable members;
} marbles_run;

/// Where the calling thread's work goes: `driver` gets its jobs (NULL: the runtime's usual
/// paths); `run` is the run it drives, whose clocks it reads when `virtual_clocks`; `standin`
/// is `MainActor`'s executor on it ({NULL, NULL}: the driver's, made when first asked for).
typedef struct {
    void *_Nullable driver;
    marbles_run *_Nullable run;
    bool virtual_clocks;
    marbles_executor_ref standin;
} marbles_route;

/// Sets the calling thread's route, returning the one before; whether it is this one already.
marbles_route marbles_route_set(marbles_route route);
bool marbles_route_is(void *_Nullable driver, marbles_run *_Nullable run, bool virtual_clocks);

// MARK: What the driver asks of a run's members

/// What a piece of member work is, for the message when it does not finish (`io`: real I/O, a
/// URLSession request on the wire, which holds virtual time still).
typedef enum marbles_work_kind { marbles_work_block, marbles_work_function, marbles_work_thread, marbles_work_timer, marbles_work_io } marbles_work_kind;

/// What the driver's settle looks at: members working (not blocked in known waits), of them real
/// I/O, main-queue blocks held for the driver's loop (`held_sync`: their submitters wait), and
/// the count of member work ever begun (it moves when work starts).
typedef struct {
    long working, io_out, held, held_sync;
    long long begun;
} marbles_members_state;

/// Work still out when the bound passed.
typedef struct {
    marbles_work_kind kind;
    char label[96];
    long long submitted_ns, age_ns;
    /// What it waits on for real when the run cannot know (a static string), or NULL.
    const char *_Nullable waits_on;
} marbles_overdue;

/// Work that stays on real time inside a run: what it is, where it went, when (virtual ns).
typedef struct {
    char what[64];
    char place[192];
    long long at_ns;
} marbles_escape;

/// What members left for the driver, in arrival order: `work(context)` at virtual `due_ns` on
/// `queue` (NULL: on the driving thread), a timer a member set or a wait's deadline; or (`held`)
/// a main-queue block from member work `sequence` for the loop.
typedef struct {
    long long due_ns, sequence;
    void *_Nullable queue, *_Nullable context;
    void (*_Nonnull work)(void *_Nullable);
    bool is_main, held;
} marbles_handoff;

typedef enum marbles_wait_kind { marbles_wait_sleep, marbles_wait_semaphore, marbles_wait_group, marbles_wait_condition } marbles_wait_kind;

/// A member blocked in a known wait, for the deadlock report (times in virtual ns; -1: no deadline).
typedef struct {
    long long id, since_ns, deadline_ns;
    marbles_wait_kind kind;
    marbles_work_kind member_kind;
    char member[96];
} marbles_wait_info;

/// The count the driver reads between steps (an `_Atomic long`): work out, held, or asked for.
void *_Nonnull marbles_members_pending_address(marbles_members *_Nonnull members);
/// The instant being settled (an `_Atomic long long`): what members read and are stamped with.
void *_Nonnull marbles_members_now_address(marbles_members *_Nonnull members);
/// The members' state once it differs from `seen`, or after `timeout_ns` of real time (NULL
/// `seen`: at once).
marbles_members_state marbles_members_watch(
    marbles_members *_Nonnull members, const marbles_members_state *_Nullable seen, long long timeout_ns);
/// Describes the work out into `buffer` and abandons it; returns how many were out.
long marbles_members_abandon(marbles_members *_Nonnull members, marbles_overdue *_Nullable buffer, long capacity);
/// Take what members left for the driver (escapes: the first 4 kept), each returning how many;
/// and whether real I/O ended since the last call (its answer may still be on its way).
long marbles_members_take_escapes(marbles_members *_Nonnull members, marbles_escape *_Nonnull buffer, long capacity);
long marbles_members_take(marbles_members *_Nonnull members, marbles_handoff *_Nonnull buffer, long capacity);
bool marbles_members_take_io_ended(marbles_members *_Nonnull members);
/// How many members are blocked in known waits (-1: not settled), and which (up to `capacity`).
long marbles_members_blocked(marbles_members *_Nonnull members, marbles_wait_info *_Nullable buffer, long capacity);
/// Cuts the members off from their runtime, which is going (late work takes its usual paths);
/// drops the run's reference, abandoning what is still out.
void marbles_members_detach(marbles_members *_Nonnull members);
void marbles_members_release(marbles_members *_Nonnull members);
void marbles_members_set_main_in_loop(marbles_members *_Nonnull members, bool in_loop);
/// Submits `work(context)` to `queue` as member work, or past the interposer (untracked).
void marbles_members_submit(
    marbles_members *_Nonnull members, void *_Nonnull queue, marbles_work_kind kind, void *_Nullable context,
    void (*_Nonnull work)(void *_Nullable));
void marbles_members_submit_untracked(void *_Nonnull queue, void *_Nullable context, void (*_Nonnull work)(void *_Nullable));
/// The sequence number of the member work running on this thread (-1: none).
long long marbles_members_current_sequence(void);

// MARK: Odds and ends

/// This thread's watchdog record (a Swift object), set once.
void *_Nullable marbles_watch_record(void);
void marbles_watch_record_set(void *_Nullable record);
/// The work of an event loop's timer hand-off (the interposer's; NULL without it): a daemon's.
extern void (*_Nullable const marbles_loop_timer_work)(void *_Nullable);
/// Enqueues `job` on the real main executor (`main`) or the global executor, past the hooks.
void marbles_enqueue_past_hooks(void *_Nonnull job, bool main);
bool marbles_is_main_thread(void);
/// A real clock reading in ns, past the interposer (it answers the executable's reads in a run).
long long marbles_real_ns(int clock);
void *_Nullable marbles_main_queue(void);
/// What the interposer's `clock_gettime` chains to (a symbol or a path); NULL where the interposer
/// is not linked into this executable (MarblesTesting links it).
const char *_Nullable marbles_clock_interposer_next_name(void);

/// Tests of the hooks: a stand-in for a delay hook installed before ours.
void marbles_test_set_previous_delay_hook(bool on);
int marbles_test_previous_hook_calls(void);

#endif
