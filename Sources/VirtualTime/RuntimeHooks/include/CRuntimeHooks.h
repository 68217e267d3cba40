#ifndef MARBLES_CRUNTIMEHOOKS_H
#define MARBLES_CRUNTIMEHOOKS_H

// The Swift runtime's hooks, routed by thread to the test scheduler that drives it. The libc
// interposer (clock_gettime, dispatch_after_f) is a target of its own, CClockInterposer, linked
// only into test executables; it reads the route's clocks through `marbles_route_clocks`.

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <time.h>

/// The clock a sleep or a reading is on, as the Swift runtime numbers them.
typedef enum marbles_clock_kind {
    marbles_clock_continuous = 1,
    marbles_clock_suspending = 2,
} marbles_clock_kind;

/// Receives a job enqueued on a thread that is driving a test scheduler.
typedef void (*marbles_capture_fn)(void *_Nonnull driver, void *_Nonnull job);

/// Receives a job the runtime was asked to run after a delay (`is_deadline` false: `remaining_ns`
/// is exact) or at a deadline (`remaining_ns` is the deadline minus the clock's time when the
/// hook ran), on a thread that is driving a test scheduler.
typedef void (*marbles_capture_delayed_fn)(
    void *_Nonnull driver, void *_Nonnull job, long long remaining_ns, bool is_deadline, marbles_clock_kind clock);

/// Told that a driving thread that is not the main thread enqueued a main-actor job (which then
/// takes the usual path to the main queue).
typedef void (*marbles_main_escape_fn)(void *_Nonnull driver);

/// A serial executor reference as the runtime passes it: the object and its witness table.
typedef struct {
    void *_Nullable identity;
    void *_Nullable witness;
} marbles_executor_ref;

/// Makes the driver's stand-in for `MainActor`'s executor (asked once per route, the first time
/// the runtime asks for the main executor on the driving thread).
typedef marbles_executor_ref (*marbles_main_standin_fn)(void *_Nonnull driver);

/// The callbacks the hooks route to. `returned` takes a job that tracked work on another thread
/// enqueued (a continuation it resumed, a task it started): the driver runs it at the instant
/// being settled.
typedef struct {
    marbles_capture_fn _Nonnull global;
    marbles_capture_fn _Nonnull main;
    marbles_capture_delayed_fn _Nonnull delayed;
    marbles_main_escape_fn _Nonnull main_escape;
    marbles_main_standin_fn _Nonnull main_standin;
    marbles_capture_fn _Nonnull returned;
} marbles_runtime_callbacks;

/// The driver's main-actor stand-in, made on first use (on the driving thread); {NULL, NULL}
/// before the hooks are installed.
marbles_executor_ref marbles_runtime_standin(void *_Nonnull driver);
/// Hands `job` to the driver as a job back from another thread (the `returned` callback).
void marbles_runtime_return_job(void *_Nonnull driver, void *_Nonnull job);

/// Installs the Swift runtime's hooks once per process (global enqueue, main-executor enqueue,
/// get-main-executor, enqueue with a delay and with a deadline), each chained to the hook that
/// was there before. Returns false when the runtime does not export `swift_task_enqueueGlobal_hook`.
bool marbles_runtime_hooks_install(marbles_runtime_callbacks callbacks);

/// Which hooks are installed, as bits: 1 global, 2 main enqueue, 4 delay, 8 deadline, 16 get main executor.
int marbles_runtime_hooks_installed(void);

/// The virtual clocks of one test scheduler, as the `clock_gettime` interposer reads them on the
/// thread that drives it (Linux): a clock's virtual reading is its base plus `now_ns(context)`.
/// The bases are taken at the first virtual reading (`bases_set`), so a run that never reads a
/// clock pays nothing: each clock reads its real time then (or `start_date_ns` for the date, when
/// `has_start_date`) at virtual time `origin_ns`, when the scheduler first drove.
typedef struct marbles_virtual_clocks {
    bool bases_set;
    bool has_start_date;
    long long start_date_ns;
    long long origin_ns;
    /// `Date()`: CLOCK_REALTIME at virtual time zero.
    long long realtime_base_ns;
    /// `SuspendingClock`: CLOCK_MONOTONIC at virtual time zero.
    long long monotonic_base_ns;
    /// `ContinuousClock`: CLOCK_BOOTTIME at virtual time zero.
    long long boottime_base_ns;
    /// The scheduler's virtual time, in nanoseconds.
    long long (*_Nonnull now_ns)(void *_Nonnull context);
    void *_Nonnull context;
    /// Virtual readings answered so far (touched only by the driving thread).
    unsigned long long reads;
    /// The same by clock: CLOCK_REALTIME (`Date()`), CLOCK_MONOTONIC (`SuspendingClock`),
    /// CLOCK_BOOTTIME (`ContinuousClock`), for the portability note.
    unsigned long long realtime_reads;
    unsigned long long monotonic_reads;
    unsigned long long boottime_reads;
    /// libdispatch's (`DispatchTime.now()`).
    unsigned long long dispatch_reads;
    /// A job that reads a clock in a loop while virtual time stands still (a busy wait): reads
    /// at `spin_now_ns`; past the limit the reading moves with real time from `spin_real_ns`
    /// (and `spin_virtual_ns`), and `spins` counts each such loop for the failure.
    long long spin_now_ns;
    unsigned long long spin_reads;
    int spin_clock;
    long long spin_real_ns;
    long long spin_virtual_ns;
    unsigned long long spins;
    long long spin_at_ns;
    /// The runtime's foreign-work tracker, made at the first submission (most runs hand nothing
    /// over and never make one), with who takes its Dispatch timers.
    struct marbles_foreign *_Nullable foreign;
    void *_Nullable foreign_owner;
    void (*_Nullable foreign_timer)(
        void *_Nonnull owner, void *_Nullable queue, bool is_main, long long remaining_ns, void *_Nullable context,
        void (*_Nonnull work)(void *_Nullable));
    /// Receives a sleeper the default executor handed to Dispatch on the driving thread (a task
    /// with no executor preference, on a default actor): `remaining_ns` is its deadline minus
    /// virtual now.
    void (*_Nullable sleep)(void *_Nonnull owner, void *_Nonnull job, long long remaining_ns, marbles_clock_kind clock);
    void *_Nullable owner;
    /// The executor (the route's driver) that the tracker hands jobs and main-queue blocks of
    /// tracked work to while it is attached, and whether that executor's test runs on the main
    /// actor (the tracker copies both when it is made).
    void *_Nullable foreign_driver;
    bool main_in_loop;
    /// Real clocks (MARBLES_PORTABLE=1): the reads of the code under test are counted in the
    /// `…_reads` fields all the same, for the failures to say which reads made a difference.
    bool count_real_reads;
} marbles_virtual_clocks;

/// Where the calling thread's work goes, all of it set by one call:
/// - `driver` gets the thread's jobs (NULL: the runtime, as usual);
/// - `MainActor`'s executor is `main_identity`/`main_witness` (NULL with a driver: the driver's
///   stand-in, made by the `main_standin` callback when first asked for);
/// - `clocks` answers the thread's clock reads when the interposer is linked (NULL: real).
typedef struct marbles_foreign marbles_foreign;

typedef struct {
    void *_Nullable driver;
    void *_Nullable main_identity;
    void *_Nullable main_witness;
    marbles_virtual_clocks *_Nullable clocks;
    /// The runtime whose tracker takes work handed to other threads from this thread (its
    /// clocks' storage, which holds the tracker once made; NULL: untracked).
    struct marbles_virtual_clocks *_Nullable home;
} marbles_route;

// MARK: Foreign work

/// What a piece of foreign work is, for the message when it does not finish.
typedef enum marbles_foreign_kind {
    marbles_foreign_kind_block,
    marbles_foreign_kind_function,
    marbles_foreign_kind_thread,
    marbles_foreign_kind_timer,
    /// Real I/O a member started (a URLSession request on the wire): it holds virtual time still.
    marbles_foreign_kind_io,
} marbles_foreign_kind;

/// Receives a Dispatch timer submitted on a driving thread whose clocks are virtual: `work(context)`
/// is due `remaining_ns` from virtual now, on `queue` (`is_main`: the main queue; NULL: called on
/// the driving thread itself, a Dispatch timer source's wake-up).
typedef void (*marbles_timer_fn)(
    void *_Nonnull owner, void *_Nullable queue, bool is_main, long long remaining_ns, void *_Nullable context,
    void (*_Nonnull work)(void *_Nullable));

/// Makes a tracker of the work a test scheduler's code hands to other threads (Dispatch blocks
/// and functions, Foundation threads) from a driving thread, or from tracked work: how much is
/// out, and what came back. Reference counted: work still out keeps it. `owner` and `timer`
/// take Dispatch timers submitted on the driving thread (`timer` NULL: timers stay real).
marbles_foreign *_Nonnull marbles_foreign_create(void *_Nonnull owner, marbles_timer_fn _Nullable timer);
/// Sets who takes the Dispatch timers submitted on the driving thread (`timer` NULL: they stay real).
void marbles_foreign_set_timer(marbles_foreign *_Nonnull foreign, void *_Nonnull owner, marbles_timer_fn _Nullable timer);
/// Submits `work(context)` to `queue` untracked (the main queue's work in a test that is not on
/// the main actor).
void marbles_foreign_submit_untracked(void *_Nonnull queue, void *_Nullable context, void (*_Nonnull work)(void *_Nullable));
/// Drops the creator's reference; first abandons what is still out.
void marbles_foreign_release(marbles_foreign *_Nonnull foreign);
/// Keeps the tracker (not its runtime) alive for a holder that outlives the run (a Dispatch timer
/// source shadowed by the interposer), and lets it go.
void marbles_foreign_hold(marbles_foreign *_Nonnull foreign);
void marbles_foreign_unhold(marbles_foreign *_Nonnull foreign);
/// The count the driver reads between steps: work out (not abandoned). An `_Atomic long`.
void *_Nonnull marbles_foreign_pending_address(marbles_foreign *_Nonnull foreign);
/// The virtual time (ns) stamped on work as it is submitted, which the driver keeps current: an
/// `_Atomic long long`.
void *_Nonnull marbles_foreign_now_address(marbles_foreign *_Nonnull foreign);
/// The calling thread's tracker from its route (NULL: none, or none made yet).
marbles_foreign *_Nullable marbles_route_foreign(void);
/// This thread's watchdog record (a Swift object), set once.
void *_Nullable marbles_watch_record(void);
void marbles_watch_record_set(void *_Nullable record);
/// Where work submitted on this thread is tracked: the route's (a driving thread), or that of
/// the tracked work running on this thread; NULL: nowhere.
marbles_foreign *_Nullable marbles_foreign_here(void);
/// The sequence number of the tracked work running on this thread (-1: none): what a job it
/// sends back is ordered by.
long long marbles_foreign_current_sequence(void);
/// Wraps `work(context)` as tracked work of `foreign`, counted out from now: pass the returned
/// context with `marbles_foreign_run_wrapped` to whatever runs it (a Dispatch `_f` function);
/// it counts in once the work has run.
void *_Nonnull marbles_foreign_wrap(
    marbles_foreign *_Nonnull foreign, marbles_foreign_kind kind, const char *_Nonnull label, void *_Nullable context,
    void (*_Nonnull work)(void *_Nullable));
void marbles_foreign_run_wrapped(void *_Nullable wrapped);
/// Submits `work(context)` to `queue` as tracked work (through the next `dispatch_async_f`).
void marbles_foreign_submit(
    marbles_foreign *_Nonnull foreign, void *_Nonnull queue, marbles_foreign_kind kind, void *_Nullable context,
    void (*_Nonnull work)(void *_Nullable));
/// Begins and ends tracking one piece of work run elsewhere (the interposer's wrappers).
long long marbles_foreign_begin(marbles_foreign *_Nonnull foreign, marbles_foreign_kind kind, const char *_Nonnull label);
void marbles_foreign_end(marbles_foreign *_Nonnull foreign, long long sequence);
/// While tracked work `sequence` runs on this thread; returns what to restore.
typedef struct {
    marbles_foreign *_Nullable foreign;
    long long sequence;
} marbles_foreign_context;
marbles_foreign_context marbles_foreign_enter(marbles_foreign *_Nullable foreign, long long sequence);
void marbles_foreign_leave(marbles_foreign_context saved);
/// How a driver's wait for the work out ended.
typedef enum marbles_foreign_wait_result {
    /// No work is out.
    marbles_foreign_drained,
    /// The bound passed with work still out.
    marbles_foreign_timed_out,
    /// Main-actor work waits for the driver while the work out cannot go on without it: a
    /// `DispatchQueue.main.sync` from tracked work, or held blocks or jobs (`other_held`, an
    /// `_Atomic long` count of the executor's) while the work out stood still for 100 ms.
    marbles_foreign_main_needed,
} marbles_foreign_wait_result;

/// The driver waits, at most `timeout_ns` of real time, until no work is out.
marbles_foreign_wait_result marbles_foreign_wait(marbles_foreign *_Nonnull foreign, long long timeout_ns, const void *_Nullable other_held);
/// Work still out when the bound passed, as the run reports it.
typedef struct {
    marbles_foreign_kind kind;
    /// Its queue's label (or what it is).
    char label[96];
    /// The virtual time it was submitted at, and how long it has been out in real time.
    long long submitted_ns;
    long long age_ns;
    /// What it waits on for real when the run cannot know (a static string), or NULL.
    const char *_Nullable waits_on;
} marbles_overdue;

/// Describes the work still out into `buffer` (up to `capacity`), and abandons all of it: it no
/// longer counts as out. Returns how many were out.
long marbles_foreign_abandon(marbles_foreign *_Nonnull foreign, marbles_overdue *_Nullable buffer, long capacity);
/// A timer's work, due on virtual time, goes to its queue as tracked work; `Block` variants
/// copy and release a block (`_Block_copy`), for the interposer.
void marbles_foreign_invoke_block(void *_Nullable block);
/// Calls a block without releasing it (a block the caller still owns: `dispatch_sync`'s).
void marbles_foreign_call_block(void *_Nonnull block);
void *_Nullable marbles_foreign_copy_block(void *_Nonnull block);
void marbles_foreign_release_block(void *_Nullable block);
/// The timer callback registered for `foreign` (NULL when timers stay real) and its owner.
marbles_timer_fn _Nullable marbles_foreign_timer(marbles_foreign *_Nonnull foreign);
void *_Nonnull marbles_foreign_owner(marbles_foreign *_Nonnull foreign);
/// Cuts the tracker off from its runtime (the runtime is going): from now on jobs and main-queue
/// blocks of its tracked work take their usual paths; blocks held and not yet run go to the real
/// main queue.
void marbles_foreign_detach(marbles_foreign *_Nonnull foreign);
/// Whether the driver runs main-actor work in its loop (its test runs on the main actor).
void marbles_foreign_set_main_in_loop(marbles_foreign *_Nonnull foreign, bool in_loop);
/// A job enqueued for the global executor on a thread that runs tracked work: handed to the
/// tracker's driver while attached (true), else left to the caller (false).
bool marbles_foreign_return_job(void *_Nonnull job);
/// The main-actor stand-in of the tracked work running on this thread, when its test runs on
/// the main actor ({NULL, NULL} otherwise).
marbles_executor_ref marbles_foreign_running_standin(void);
/// A block for the main queue from tracked work: held for the driver's loop when its test runs
/// on the main actor and it is attached (true); false: submit it as usual.
/// `sync`: the submitter waits for it (`DispatchQueue.main.sync`); the driver runs it at once.
bool marbles_foreign_hold_main(
    marbles_foreign *_Nonnull foreign, void *_Nullable context, void (*_Nonnull work)(void *_Nullable), bool sync);
/// A held main-queue block: the sequence of the tracked work that submitted it (-1: none).
typedef struct {
    long long sequence;
    void *_Nullable context;
    void (*_Nonnull work)(void *_Nullable);
} marbles_held_work;
/// Takes up to `capacity` held blocks, in arrival order, into `buffer`; returns how many.
long marbles_foreign_take_held(marbles_foreign *_Nonnull foreign, marbles_held_work *_Nonnull buffer, long capacity);
/// libdispatch's main queue.
void *_Nullable marbles_main_queue(void);
/// Notes work that stays on real time inside the run (`what`, e.g. "a Dispatch timer source",
/// on `queue`), at the current virtual time; the first few are kept for the run's failures.
void marbles_foreign_note_escape(marbles_foreign *_Nonnull foreign, const char *_Nonnull what, void *_Nonnull queue);
/// The same with where it went said in full (`place`: "in run-loop mode 'x' is left to …").
void marbles_foreign_note_escape_in(marbles_foreign *_Nonnull foreign, const char *_Nonnull what, const char *_Nonnull place);
/// Work that stays on real time inside a run, as noted.
typedef struct {
    /// What it is ("a Dispatch timer source") and where it went, said in full.
    char what[64];
    char place[192];
    /// The virtual time it was armed at.
    long long at_ns;
} marbles_escape;

/// Takes the escapes noted so far (at most 4 are kept) into `buffer`; returns how many.
long marbles_foreign_take_escapes(marbles_foreign *_Nonnull foreign, marbles_escape *_Nonnull buffer, long capacity);
// MARK: Members and their waits (one bubble)
//
// Tracked work is a member of its run at any depth: what it submits, the timers it sets and
// the threads it starts are members too. A member reads the run's clocks at the instant being
// settled, its timers are virtual wake-ups, and a member blocked in a known wait (a sleep, or a
// wait on a semaphore, group or condition made inside the run) is not working: virtual time
// moves when every member is done or blocked in one.
//
// Lock order: the interposer's list locks (timer sources, run-loop timers) before the tracker
// lock (`mutex` in ForeignWork.c); nothing calls into Swift under either. The driver drains
// what members ask for (`marbles_foreign_take_requests`) with no lock held.

/// A virtual wake-up a member asked for: `work(context)` is due at virtual `due_ns`, on `queue`
/// (`is_main`: the main queue; NULL: run on the driving thread, a wait's deadline or a timer
/// source's wake-up).
typedef struct {
    long long due_ns;
    void *_Nullable queue;
    bool is_main;
    void *_Nullable context;
    void (*_Nonnull work)(void *_Nullable);
} marbles_wake_request;

/// What a member waits on.
typedef enum marbles_wait_kind {
    marbles_wait_sleep,
    marbles_wait_semaphore,
    marbles_wait_group,
    marbles_wait_condition,
} marbles_wait_kind;

/// A member blocked in a known wait, for the deadlock report.
typedef struct {
    long long id;
    marbles_wait_kind kind;
    /// Since when, and until when (-1: no deadline), in virtual ns.
    long long since_ns;
    long long deadline_ns;
    /// What the member is: its work's kind and queue label.
    marbles_foreign_kind member_kind;
    char member[96];
} marbles_wait_info;

/// The real condition-variable functions the tracker's own waits use (the interposer registers
/// the next ones in its chain, so that they do not come back to it).
typedef struct {
    int (*_Nonnull wait)(pthread_cond_t *_Nonnull, pthread_mutex_t *_Nonnull);
    int (*_Nonnull timedwait)(pthread_cond_t *_Nonnull, pthread_mutex_t *_Nonnull, const struct timespec *_Nonnull);
    int (*_Nonnull broadcast)(pthread_cond_t *_Nonnull);
} marbles_real_conditions;
void marbles_register_real_conditions(marbles_real_conditions conditions);

/// The calling thread's run when it is a member of one whose clocks are virtual and it is not
/// waiting for real on the interposer's behalf; NULL otherwise (every thread outside runs).
marbles_foreign *_Nullable marbles_member(void);
/// A member's reading of clock `which` (0 realtime, 1 monotonic, 2 boottime): the run's base
/// plus the instant being settled.
long long marbles_member_reading(marbles_foreign *_Nonnull foreign, int which);
/// While the interposer waits for real for a member, its clock reads are real (libdispatch
/// reads the clock inside its own waits).
void marbles_member_reading_real(bool on);
/// On a driving thread: publishes its virtual now as the instant its run's members read. Call
/// before taking the tracker lock to wake members (it calls into Swift).
void marbles_publish_now_if_driving(void);
/// Sets the clocks the run's members read (on the driving thread, when the tracker is made).
void marbles_clocks_set_bases(marbles_virtual_clocks *_Nonnull clocks);
/// A member asks for a virtual wake-up `remaining_ns` from the instant being settled.
void marbles_foreign_request_wake(
    marbles_foreign *_Nonnull foreign, long long remaining_ns, void *_Nullable queue, void *_Nullable context,
    void (*_Nonnull work)(void *_Nullable));
/// Takes up to `capacity` wake-ups members asked for, in the order asked; returns how many.
long marbles_foreign_take_requests(marbles_foreign *_Nonnull foreign, marbles_wake_request *_Nonnull buffer, long capacity);

/// Notes a semaphore, group or condition made by the calling thread: known to its run when the
/// thread drives one or is a member.
void marbles_note_object(const void *_Nonnull object);
/// Forgets an object (a condition destroyed).
void marbles_forget_object(const void *_Nonnull object);
/// Whether signals must look for member waiters (a run with virtual clocks is alive).
bool marbles_waits_possible(void);
/// Locks and unlocks the tracker lock around a signal and its real call, so that a waiter
/// either saw the signal before it began or is found by it.
void marbles_waits_lock(void);
void marbles_waits_unlock(void);
/// Begins a known wait of the calling member on `object` (`try_acquire` is called under the
/// tracker lock first: true, no wait). `remaining_ns` < 0: no deadline. Returns the wait's id:
/// 0 when the thread is no member or the object was not made in its run (wait for real: it
/// holds virtual time still), -1 when `try_acquire` succeeded.
long long marbles_wait_begin(
    marbles_wait_kind kind, const void *_Nullable object, long long remaining_ns, bool (*_Nullable try_acquire)(const void *_Nullable));
/// Whether wait `id`'s virtual deadline has come (the interposer polls while it waits for real).
bool marbles_wait_timed_out(long long id);
/// A sleep: blocks until its deadline comes (or the run is gone).
void marbles_wait_sleep_until_woken(long long id);
/// Ends wait `id`; `satisfied`: the real wait succeeded. Returns whether its deadline had come.
bool marbles_wait_end(long long id, bool satisfied);
/// With the tracker lock held (`marbles_waits_lock`): wakes up to `count` member waiters on
/// `object` (-1: all), who count as working from now.
void marbles_wait_wake_locked(const void *_Nonnull object, long count);
/// The calling member waits for real on something the run cannot know (`what`, a static
/// string: "a DispatchSemaphore made outside the run"), NULL when it no longer does: the bound's
/// report names it.
void marbles_member_waits_for_real(const char *_Nullable what);
/// Wraps a group's notification as tracked work (`marbles_foreign_wrap`) that waits on `group`
/// until it empties: it does not hold virtual time while the group's members sleep.
void *_Nonnull marbles_foreign_wrap_notification(
    marbles_foreign *_Nonnull foreign, const void *_Nonnull group, void *_Nullable context, void (*_Nonnull work)(void *_Nullable));
/// Real I/O started by the calling thread's run (keyed by `handle`: URLSession's timer source
/// while a request is on the wire) begins and ends: while it is out, virtual time stands still,
/// as for work a member is doing.
/// `queue`: where the I/O's events are handled; I/O begun later off the run's threads on the
/// same queue (libcurl re-arming its timer from a socket event) is the run's too.
void marbles_io_begin(const void *_Nonnull handle, const void *_Nullable queue, const char *_Nonnull label);
void marbles_io_end(const void *_Nonnull handle);
/// Whether real I/O of `foreign`'s run ended since the last call: its answer (a completion
/// handler, a resumed continuation) may still be on its way from a thread outside the run.
bool marbles_foreign_take_io_ended(marbles_foreign *_Nonnull foreign);
/// How many members of `foreign`'s run are blocked in known waits (-1: the run is not settled:
/// a member works, or a wake-up waits to be drained), and which (up to `capacity`).
long marbles_foreign_blocked(marbles_foreign *_Nonnull foreign, marbles_wait_info *_Nullable buffer, long capacity);

/// Enqueues `job` on the global executor, past the hooks (no test scheduler takes it).
void marbles_enqueue_on_real_global(void *_Nonnull job);

/// The interposer's `dispatch_async_f`, the next one in the chain (NULL before the interposer
/// registered it); foreign work is submitted through it.
void marbles_foreign_register_submit(void (*_Nonnull submit)(void *_Nonnull, void *_Nullable, void (*_Nonnull)(void *_Nullable)));

/// Sets the calling thread's route; returns the one set before, to restore it.
marbles_route marbles_route_set(marbles_route route);
/// Whether the calling thread is routed to `driver` with these clocks already (a run's own drive).
bool marbles_route_is(void *_Nullable driver, marbles_virtual_clocks *_Nullable clocks, marbles_virtual_clocks *_Nullable home);

/// The calling thread's virtual clocks (the interposer's one read of the route).
marbles_virtual_clocks *_Nullable marbles_route_clocks(void);
/// The calling thread's route's home storage (its scheduler's clocks, virtual or not).
marbles_virtual_clocks *_Nullable marbles_route_home(void);

/// Called once by the interposer's constructor: clock reads of this process can be virtual.
/// `next_name` tells what its `clock_gettime` chains to (for tests).
void marbles_clock_interposer_register(const char *_Nonnull (*_Nonnull next_name)(void));
/// Whether the interposer registered (it is linked into this executable: MarblesTesting links it).
bool marbles_clock_interposer_registered(void);
/// What the interposer's `clock_gettime` chains to: a symbol name or a library path ("" when
/// it is not linked).
const char *_Nonnull marbles_clock_interposer_next_name(void);

/// Enqueues `job` on the real main executor (not a driver's stand-in).
void marbles_enqueue_on_real_main(void *_Nonnull job);

/// Whether the calling thread is the process's main thread.
bool marbles_is_main_thread(void);

/// Calls the runtime's `swift_task_enqueueGlobalWithDelay` / `WithDeadline` entry points (for
/// tests of the hooks: Swift 6.3's `Task.sleep` goes through the task executor instead).
void marbles_enqueue_global_with_delay(unsigned long long delay_ns, void *_Nonnull job);
void marbles_enqueue_global_with_deadline_after(long long delay_ns, marbles_clock_kind clock, void *_Nonnull job);

/// Tests only: swaps in a hook as if another library had installed it before ours, returning
/// the one it replaces; `marbles_test_previous_hook_calls` counts calls that reached it.
void marbles_test_set_previous_delay_hook(bool on);
int marbles_test_previous_hook_calls(void);

#endif
