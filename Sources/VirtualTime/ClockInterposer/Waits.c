// A run's members' blocking waits on virtual time (Linux): sleeps, and waits on a semaphore, group
// or condition made inside the run (known waits); any other wait holds virtual time still.
// docs/DESIGN.md, "One bubble". Outside runs a call costs a thread-local read or an atomic load.
#include "InterposerShared.h"

#if defined(__linux__)
#include <sys/time.h>
#include <unistd.h>

INTERPOSED(intptr_t, dispatch_semaphore_wait, void *semaphore, uint64_t timeout);
INTERPOSED(intptr_t, dispatch_group_wait, void *group, uint64_t timeout);
INTERPOSED(intptr_t, dispatch_semaphore_signal, void *semaphore);
INTERPOSED(void *, dispatch_semaphore_create, intptr_t value);
INTERPOSED(void *, dispatch_group_create, void);
INTERPOSED(void, dispatch_group_leave, void *group);
INTERPOSED(int, pthread_cond_init, pthread_cond_t *condition, const pthread_condattr_t *attributes);
INTERPOSED(int, pthread_cond_destroy, pthread_cond_t *condition);
INTERPOSED(int, pthread_cond_signal, pthread_cond_t *condition);
INTERPOSED(int, pthread_cond_broadcast, pthread_cond_t *condition);
INTERPOSED(int, pthread_cond_wait, pthread_cond_t *condition, pthread_mutex_t *mutex);
INTERPOSED(int, pthread_cond_timedwait, pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline);
INTERPOSED(int, nanosleep, const struct timespec *request, struct timespec *remaining);
INTERPOSED(int, clock_nanosleep, clockid_t clock, int flags, const struct timespec *request, struct timespec *remaining);
INTERPOSED(int, usleep, useconds_t microseconds);
INTERPOSED(unsigned, sleep, unsigned seconds);
INTERPOSED(int, gettimeofday, struct timeval *tv, void *tz);

// The members' own condition waits go straight to the next definitions.
__attribute__((constructor)) static void register_conditions(void) {
    marbles_register_real_conditions(
        (marbles_real_conditions){NEXT_OF(pthread_cond_wait), NEXT_OF(pthread_cond_timedwait), NEXT_OF(pthread_cond_broadcast)});
}

// MARK: Sleeps

// A member's sleep of `ns`, a known wait; false elsewhere and for the runtime's and libdispatch's.
static bool slept_virtually(long long ns, uintptr_t caller) {
    return !marbles_ip_from_runtime(caller) && marbles_wait(marbles_wait_sleep, NULL, ns < 0 ? 0 : ns, NULL, NULL, NULL, NULL);
}

int nanosleep(const struct timespec *request, struct timespec *remaining) {
    if (request == NULL || !slept_virtually(marbles_ns_of(request), CALLER)) return NEXT_OF(nanosleep)(request, remaining);
    if (remaining != NULL) *remaining = (struct timespec){0, 0};
    return 0;
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remaining) {
    marbles_members *member = request != NULL ? marbles_member() : NULL;
    int which = clock == CLOCK_REALTIME ? 0 : clock == CLOCK_MONOTONIC ? 1 : clock == CLOCK_BOOTTIME ? 2 : -1;
    bool absolute = (flags & TIMER_ABSTIME) != 0;
    if (member == NULL || which < 0 || !slept_virtually(marbles_ns_of(request) - (absolute ? marbles_member_reading(member, which) : 0), CALLER)) {
        return NEXT_OF(clock_nanosleep)(clock, flags, request, remaining);
    }
    if (remaining != NULL && !absolute) *remaining = (struct timespec){0, 0};
    return 0;
}

int usleep(useconds_t microseconds) { return slept_virtually((long long)microseconds * 1000, CALLER) ? 0 : NEXT_OF(usleep)(microseconds); }

unsigned sleep(unsigned seconds) { return slept_virtually((long long)seconds * 1000000000, CALLER) ? 0 : NEXT_OF(sleep)(seconds); }

// `CFAbsoluteTimeGetCurrent()` on a member (`Thread.sleep` measures with it): the run's date.
int gettimeofday(struct timeval *tv, void *tz) {
    marbles_members *member = marbles_member();
    if (member == NULL || !marbles_ip_from_foundation(CALLER)) return NEXT_OF(gettimeofday)(tv, tz);
    long long now = marbles_member_reading(member, 0);
    *tv = (struct timeval){(time_t)(now / 1000000000), (long)(now % 1000000000) / 1000};
    return 0;
}

// MARK: Semaphores and groups

static bool semaphore_taken(const void *semaphore) { return NEXT_OF(dispatch_semaphore_wait)((void *)semaphore, 0) == 0; }

static bool group_empty(const void *group) { return NEXT_OF(dispatch_group_wait)((void *)group, 0) == 0; }

// A member's wait on a semaphore or group (Run.h's `marbles_wait`), its deadline read on the run's clock.
typedef struct {
    void *object;
    intptr_t (*next)(void *, uint64_t);
    intptr_t result;
} object_attempt;

static bool attempt_object(void *raw, long long slice_ns) {
    object_attempt *it = raw;
    it->result = it->next(it->object, slice_ns < 0 ? UINT64_MAX : (uint64_t)(marbles_real_ns(CLOCK_MONOTONIC) + slice_ns));
    return it->result == 0;
}

static intptr_t object_wait(marbles_wait_kind kind, void *object, uint64_t timeout, intptr_t (*next)(void *, uint64_t), bool (*try_now)(const void *)) {
    marbles_members *member = timeout != 0 ? marbles_member() : NULL;
    long long remaining = -1;
    if (member == NULL || (timeout != UINT64_MAX && !marbles_ip_virtual_remaining(member, timeout, &remaining))) return next(object, timeout);
    object_attempt attempt = {object, next, 0};
    const char *unknown = kind == marbles_wait_group ? "a DispatchGroup made outside the run" : "a DispatchSemaphore made outside the run";
    marbles_wait(kind, object, remaining, try_now, unknown, attempt_object, &attempt);
    return attempt.result;
}

intptr_t dispatch_semaphore_wait(void *semaphore, uint64_t timeout) {
    return object_wait(marbles_wait_semaphore, semaphore, timeout, NEXT_OF(dispatch_semaphore_wait), semaphore_taken);
}

intptr_t dispatch_group_wait(void *group, uint64_t timeout) {
    return object_wait(marbles_wait_group, group, timeout, NEXT_OF(dispatch_group_wait), group_empty);
}

// The waiter counts as working before it can run, and a waiter that began meanwhile either took
// the count already or is found.
intptr_t dispatch_semaphore_signal(void *semaphore) { return marbles_wake_waiters(semaphore, 1, NEXT_OF(dispatch_semaphore_signal)); }

void dispatch_group_leave(void *group) {
    NEXT_OF(dispatch_group_leave)(group);
    // After the leave (which may run notifications): the leaving member works until it returns.
    if (marbles_waits_possible() && group_empty(group)) marbles_wake_waiters(group, -1, NULL);
}

void *dispatch_semaphore_create(intptr_t value) { return marbles_note_object(NEXT_OF(dispatch_semaphore_create)(value)); }

void *dispatch_group_create(void) { return marbles_note_object(NEXT_OF(dispatch_group_create)()); }

// MARK: Conditions

int pthread_cond_init(pthread_cond_t *condition, const pthread_condattr_t *attributes) {
    int status = NEXT_OF(pthread_cond_init)(condition, attributes);
    if (status == 0) marbles_note_object(condition);
    return status;
}

int pthread_cond_destroy(pthread_cond_t *condition) {
    marbles_forget_object(condition);
    return NEXT_OF(pthread_cond_destroy)(condition);
}

typedef struct {
    pthread_cond_t *condition;
    pthread_mutex_t *mutex;
    clockid_t clock;
    int status;
} condition_attempt;

static bool attempt_condition(void *raw, long long slice_ns) {
    condition_attempt *it = raw;
    struct timespec until = marbles_timespec_of(marbles_real_ns(it->clock) + slice_ns);
    it->status = slice_ns < 0 ? NEXT_OF(pthread_cond_wait)(it->condition, it->mutex) : NEXT_OF(pthread_cond_timedwait)(it->condition, it->mutex, &until);
    return it->status == 0;
}

static const char *const unknown_condition = "a condition made outside the run";

int pthread_cond_wait(pthread_cond_t *condition, pthread_mutex_t *mutex) {
    if (marbles_member() == NULL) return NEXT_OF(pthread_cond_wait)(condition, mutex);
    condition_attempt attempt = {condition, mutex, CLOCK_REALTIME, 0};
    marbles_wait(marbles_wait_condition, condition, -1, NULL, unknown_condition, attempt_condition, &attempt);
    return attempt.status;
}

int pthread_cond_timedwait(pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline) {
    marbles_members *member = marbles_member();
    if (member == NULL) return NEXT_OF(pthread_cond_timedwait)(condition, mutex, deadline);
#if defined(__GLIBC__)
    // glibc keeps a condition's clock in `__wrefs` (bit 1: CLOCK_MONOTONIC).
    clockid_t clock = (condition->__data.__wrefs & 2) != 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
#else
    clockid_t clock = CLOCK_REALTIME;
#endif
    long long remaining = marbles_ns_of(deadline) - marbles_member_reading(member, clock == CLOCK_MONOTONIC ? 1 : 0);
    // A wall-clock deadline comes from a `Date` (a `Double`, exact to about 0.1 µs): to the microsecond.
    if (clock == CLOCK_REALTIME) remaining = (remaining + 500) / 1000 * 1000;
    condition_attempt attempt = {condition, mutex, clock, ETIMEDOUT};
    bool signalled =
        marbles_wait(marbles_wait_condition, condition, remaining < 0 ? 0 : remaining, NULL, unknown_condition, attempt_condition, &attempt);
    return signalled ? 0 : attempt.status;
}

static int signal_condition(pthread_cond_t *condition, long count) {
    marbles_wake_waiters(condition, count, NULL);
    return count == 1 ? NEXT_OF(pthread_cond_signal)(condition) : NEXT_OF(pthread_cond_broadcast)(condition);
}

int pthread_cond_signal(pthread_cond_t *condition) { return signal_condition(condition, 1); }

int pthread_cond_broadcast(pthread_cond_t *condition) { return signal_condition(condition, -1); }
#endif
