// Blocking waits of a run's members on virtual time (Linux): sleeps (`Thread.sleep`, `usleep`,
// `sleep`, `nanosleep`, `clock_nanosleep`) and waits on a `DispatchSemaphore`, a `DispatchGroup`
// or a condition (`NSCondition`, `pthread_cond_(timed)wait`) made inside the run.
//
// A member blocked in one is not working (Members.c counts it apart), so virtual time moves
// past it; a deadline is a virtual wake-up, and a signal from anyone makes the waiter count as
// working before it returns, so the run waits for it at the instant of the signal. A wait on an
// object made outside the run, or off a member thread, is left to libc and libdispatch: it holds
// virtual time still, as an I/O wait does. Outside runs each call costs a thread-local read
// (waits) or an atomic load (signals) before it goes on.
#define _GNU_SOURCE
#include "InterposerShared.h"

#if defined(__linux__)
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

typedef intptr_t (*object_wait_fn)(void *, uint64_t);
typedef intptr_t (*sema_signal_fn)(void *);
typedef void *(*sema_create_fn)(intptr_t);
typedef void *(*group_create_fn)(void);
typedef void (*group_fn)(void *);
typedef int (*cond_init_fn)(pthread_cond_t *, const pthread_condattr_t *);
typedef int (*cond_fn)(pthread_cond_t *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);
typedef int (*usleep_fn)(useconds_t);
typedef unsigned (*sleep_fn)(unsigned);
typedef int (*gettimeofday_fn)(struct timeval *, void *);

static _Atomic(object_wait_fn) next_sema_wait, next_group_wait;
static _Atomic(sema_signal_fn) next_sema_signal;
static _Atomic(sema_create_fn) next_sema_create;
static _Atomic(group_create_fn) next_group_create;
static _Atomic(group_fn) next_group_leave;
static _Atomic(cond_init_fn) next_cond_init;
static _Atomic(cond_fn) next_cond_destroy, next_cond_signal, next_cond_broadcast;
static _Atomic(cond_wait_fn) next_cond_wait;
static _Atomic(cond_timedwait_fn) next_cond_timedwait;
static _Atomic(nanosleep_fn) next_nanosleep;
static _Atomic(clock_nanosleep_fn) next_clock_nanosleep;
static _Atomic(usleep_fn) next_usleep;
static _Atomic(sleep_fn) next_sleep;
static _Atomic(gettimeofday_fn) next_gettimeofday;

intptr_t dispatch_semaphore_wait(void *semaphore, uint64_t timeout);
intptr_t dispatch_semaphore_signal(void *semaphore);
void *dispatch_semaphore_create(intptr_t value);
void *dispatch_group_create(void);
intptr_t dispatch_group_wait(void *group, uint64_t timeout);
void dispatch_group_leave(void *group);

#define SEMA_WAIT NEXT(next_sema_wait, object_wait_fn, "dispatch_semaphore_wait", dispatch_semaphore_wait)
#define GROUP_WAIT NEXT(next_group_wait, object_wait_fn, "dispatch_group_wait", dispatch_group_wait)
#define COND_WAIT NEXT(next_cond_wait, cond_wait_fn, "pthread_cond_wait", pthread_cond_wait)
#define COND_TIMEDWAIT NEXT(next_cond_timedwait, cond_timedwait_fn, "pthread_cond_timedwait", pthread_cond_timedwait)
#define COND_BROADCAST NEXT(next_cond_broadcast, cond_fn, "pthread_cond_broadcast", pthread_cond_broadcast)

// How often a member in a timed wait looks whether its virtual deadline came (real time).
enum { slice_ns = 1000000 };

// The tracker's own condition waits go straight to the next definitions.
__attribute__((constructor)) static void register_conditions(void) {
    marbles_register_real_conditions((marbles_real_conditions){COND_WAIT, COND_TIMEDWAIT, COND_BROADCAST});
}

static long long real_ns(clockid_t id) {
    struct timespec ts;
    marbles_ip_real_clock_gettime(id, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec timespec_of(long long ns) { return (struct timespec){(time_t)(ns / 1000000000), (long)(ns % 1000000000)}; }

static long long ns_of(const struct timespec *ts) { return (long long)ts->tv_sec * 1000000000 + ts->tv_nsec; }

// A Dispatch deadline `remaining` ns from real now (uptime: CLOCK_MONOTONIC).
static uint64_t real_dispatch_after(long long remaining) { return (uint64_t)(real_ns(CLOCK_MONOTONIC) + (remaining < 0 ? 0 : remaining)); }

// MARK: Sleeps

// A member's sleep of `ns`: a known wait whose deadline wakes it; false elsewhere, and for the
// Swift runtime's and libdispatch's own sleeps (a worker's back-off).
static bool slept_virtually(long long ns, uintptr_t caller) {
    if (marbles_ip_from_runtime(caller)) return false;
    long long id = marbles_wait_begin(marbles_wait_sleep, NULL, ns < 0 ? 0 : ns, NULL);
    if (id <= 0) return false;
    marbles_wait_sleep_until_woken(id);
    marbles_wait_end(id, false);
    return true;
}

int nanosleep(const struct timespec *request, struct timespec *remaining) {
    if (request != NULL && marbles_member() != NULL && slept_virtually(ns_of(request), (uintptr_t)__builtin_return_address(0))) {
        if (remaining != NULL) *remaining = (struct timespec){0, 0};
        return 0;
    }
    return NEXT(next_nanosleep, nanosleep_fn, "nanosleep", nanosleep)(request, remaining);
}

int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request, struct timespec *remaining) {
    marbles_members *member = request != NULL ? marbles_member() : NULL;
    int which = clock == CLOCK_REALTIME ? 0 : clock == CLOCK_MONOTONIC ? 1 : clock == CLOCK_BOOTTIME ? 2 : -1;
    if (member != NULL && which >= 0) {
        long long ns = (flags & TIMER_ABSTIME) ? ns_of(request) - marbles_member_reading(member, which) : ns_of(request);
        if (slept_virtually(ns, (uintptr_t)__builtin_return_address(0))) {
            if (remaining != NULL && !(flags & TIMER_ABSTIME)) *remaining = (struct timespec){0, 0};
            return 0;
        }
    }
    return NEXT(next_clock_nanosleep, clock_nanosleep_fn, "clock_nanosleep", clock_nanosleep)(clock, flags, request, remaining);
}

int usleep(useconds_t microseconds) {
    if (marbles_member() != NULL && slept_virtually((long long)microseconds * 1000, (uintptr_t)__builtin_return_address(0))) return 0;
    return NEXT(next_usleep, usleep_fn, "usleep", usleep)(microseconds);
}

unsigned sleep(unsigned seconds) {
    if (marbles_member() != NULL && slept_virtually((long long)seconds * 1000000000, (uintptr_t)__builtin_return_address(0))) return 0;
    return NEXT(next_sleep, sleep_fn, "sleep", sleep)(seconds);
}

// `CFAbsoluteTimeGetCurrent()` on a member (Foundation's `Thread.sleep` measures what is left
// with it): the run's date.
int gettimeofday(struct timeval *tv, void *tz) {
    marbles_members *member = tv != NULL ? marbles_member() : NULL;
    if (member != NULL && marbles_ip_from_foundation((uintptr_t)__builtin_return_address(0))) {
        long long now = marbles_member_reading(member, 0);
        *tv = (struct timeval){(time_t)(now / 1000000000), (long)(now % 1000000000) / 1000};
        return 0;
    }
    return NEXT(next_gettimeofday, gettimeofday_fn, "gettimeofday", gettimeofday)(tv, tz);
}

// MARK: Semaphores and groups

static bool semaphore_taken(const void *semaphore) { return SEMA_WAIT((void *)semaphore, 0) == 0; }

static bool group_empty(const void *group) { return GROUP_WAIT((void *)group, 0) == 0; }

// A member's wait on a semaphore or group made in its run: known, its deadline virtual.
static intptr_t object_wait(marbles_wait_kind kind, void *object, uint64_t timeout, object_wait_fn next, bool (*try_now)(const void *)) {
    marbles_members *member = timeout != 0 ? marbles_member() : NULL;
    long long remaining = -1;
    if (member == NULL || (timeout != UINT64_MAX && !marbles_ip_virtual_remaining(member, timeout, &remaining))) {
        return next(object, timeout);
    }
    long long id = marbles_wait_begin(kind, object, remaining, try_now);
    if (id == -1) return 0;
    intptr_t result;
    marbles_member_reading_real(true);
    if (id == 0) {
        // Made outside the run: a real wait, which holds virtual time still; its deadline, read
        // on the run's clock, is as far away in real time.
        marbles_member_waits_for_real(kind == marbles_wait_group ? "a DispatchGroup made outside the run" : "a DispatchSemaphore made outside the run");
        result = next(object, remaining < 0 ? UINT64_MAX : real_dispatch_after(remaining));
        marbles_member_waits_for_real(NULL);
    } else {
        do {
            result = next(object, remaining < 0 ? UINT64_MAX : real_dispatch_after(slice_ns));
        } while (result != 0 && !marbles_wait_timed_out(id));
    }
    marbles_member_reading_real(false);
    if (id > 0) marbles_wait_end(id, result == 0);
    return result;
}

intptr_t dispatch_semaphore_wait(void *semaphore, uint64_t timeout) {
    return object_wait(marbles_wait_semaphore, semaphore, timeout, SEMA_WAIT, semaphore_taken);
}

intptr_t dispatch_group_wait(void *group, uint64_t timeout) { return object_wait(marbles_wait_group, group, timeout, GROUP_WAIT, group_empty); }

intptr_t dispatch_semaphore_signal(void *semaphore) {
    sema_signal_fn next = NEXT(next_sema_signal, sema_signal_fn, "dispatch_semaphore_signal", dispatch_semaphore_signal);
    if (!marbles_waits_possible()) return next(semaphore);
    // The waiter counts as working before it can run, and a waiter that began meanwhile either
    // took the count already or is found here.
    marbles_waits_lock();
    marbles_wait_wake_locked(semaphore, 1);
    intptr_t result = next(semaphore);
    marbles_waits_unlock();
    return result;
}

void dispatch_group_leave(void *group) {
    group_fn next = NEXT(next_group_leave, group_fn, "dispatch_group_leave", dispatch_group_leave);
    next(group);
    // After the leave, which may run the group's notifications (work of its own): the member
    // that left works until it returns, so time cannot move before its waiters count as working.
    if (!marbles_waits_possible() || !group_empty(group)) return;
    marbles_waits_lock();
    marbles_wait_wake_locked(group, -1);
    marbles_waits_unlock();
}

void *dispatch_semaphore_create(intptr_t value) {
    void *semaphore = NEXT(next_sema_create, sema_create_fn, "dispatch_semaphore_create", dispatch_semaphore_create)(value);
    if (semaphore != NULL) marbles_note_object(semaphore);
    return semaphore;
}

void *dispatch_group_create(void) {
    void *group = NEXT(next_group_create, group_create_fn, "dispatch_group_create", dispatch_group_create)();
    if (group != NULL) marbles_note_object(group);
    return group;
}

// MARK: Conditions

int pthread_cond_init(pthread_cond_t *condition, const pthread_condattr_t *attributes) {
    int status = NEXT(next_cond_init, cond_init_fn, "pthread_cond_init", pthread_cond_init)(condition, attributes);
    if (status == 0) marbles_note_object(condition);
    return status;
}

int pthread_cond_destroy(pthread_cond_t *condition) {
    marbles_forget_object(condition);
    return NEXT(next_cond_destroy, cond_fn, "pthread_cond_destroy", pthread_cond_destroy)(condition);
}

int pthread_cond_wait(pthread_cond_t *condition, pthread_mutex_t *mutex) {
    bool member = marbles_member() != NULL;
    long long id = member ? marbles_wait_begin(marbles_wait_condition, condition, -1, NULL) : 0;
    if (member && id == 0) marbles_member_waits_for_real("a condition made outside the run");
    int status = COND_WAIT(condition, mutex);
    if (id > 0) marbles_wait_end(id, true);
    if (member && id == 0) marbles_member_waits_for_real(NULL);
    return status;
}

// glibc keeps a condition's clock in `__wrefs` (bit 1: CLOCK_MONOTONIC).
static clockid_t clock_of(const pthread_cond_t *condition) {
#if defined(__GLIBC__)
    return (condition->__data.__wrefs & 2) != 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
#else
    (void)condition;
    return CLOCK_REALTIME;
#endif
}

int pthread_cond_timedwait(pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline) {
    marbles_members *member = marbles_member();
    if (member == NULL) return COND_TIMEDWAIT(condition, mutex, deadline);
    clockid_t clock = clock_of(condition);
    long long remaining = ns_of(deadline) - marbles_member_reading(member, clock == CLOCK_MONOTONIC ? 1 : 0);
    // A wall-clock deadline comes from a `Date` (a `Double`, exact to about 0.1 µs): to the microsecond.
    if (clock == CLOCK_REALTIME) remaining = (remaining + 500) / 1000 * 1000;
    long long id = marbles_wait_begin(marbles_wait_condition, condition, remaining < 0 ? 0 : remaining, NULL);
    marbles_member_reading_real(true);
    int status;
    if (id <= 0) {
        struct timespec real = timespec_of(real_ns(clock) + (remaining < 0 ? 0 : remaining));
        marbles_member_waits_for_real("a condition made outside the run");
        status = COND_TIMEDWAIT(condition, mutex, &real);
        marbles_member_waits_for_real(NULL);
    } else {
        do {
            struct timespec slice = timespec_of(real_ns(clock) + slice_ns);
            status = COND_TIMEDWAIT(condition, mutex, &slice);
        } while (status == ETIMEDOUT && !marbles_wait_timed_out(id));
    }
    marbles_member_reading_real(false);
    if (id > 0) marbles_wait_end(id, status == 0);
    return status;
}

static int signal_condition(pthread_cond_t *condition, long count, cond_fn next) {
    if (marbles_waits_possible()) {
            marbles_waits_lock();
        marbles_wait_wake_locked(condition, count);
        marbles_waits_unlock();
    }
    return next(condition);
}

int pthread_cond_signal(pthread_cond_t *condition) {
    return signal_condition(condition, 1, NEXT(next_cond_signal, cond_fn, "pthread_cond_signal", pthread_cond_signal));
}

int pthread_cond_broadcast(pthread_cond_t *condition) { return signal_condition(condition, -1, COND_BROADCAST); }

#endif
