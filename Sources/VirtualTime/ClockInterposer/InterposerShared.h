// What the interposer's files share (not part of the module's interface).
#ifndef MARBLES_INTERPOSER_SHARED_H
#define MARBLES_INTERPOSER_SHARED_H
#if defined(__linux__)
#include "CRuntimeHooks.h"
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/// libdispatch's main queue.
extern void *marbles_ip_main_queue;
/// A slot's next definition of an interposed function, found now if not yet.
void *marbles_ip_next_in(void *_Atomic *slot, const char *name, const char *interceptor, void *ours);
#define NEXT(slot, type, name, ours) ((type)marbles_ip_next_in((void *_Atomic *)&(slot), name, "__interceptor_" name, (void *)(ours)))
/// The tracker for a submission from `caller`: none for the Swift runtime's and libdispatch's own.
marbles_foreign *marbles_ip_tracker_for(uintptr_t caller);
/// The virtual time left to a Dispatch deadline, on a driving thread whose clocks are virtual.
bool marbles_ip_virtual_remaining(marbles_foreign *foreign, uint64_t when, long long *remaining);
/// Takes `node` off the singly linked list at `head`, whose nodes begin with their `next` pointer.
void marbles_ip_unlink(void **head, void *node);
/// `Date()` on a driving thread whose clocks are virtual, in ns since 1970; false elsewhere.
bool marbles_ip_virtual_date_ns(long long *now);
/// Hands `work(context)` to the driver, due `remaining` ns from virtual now, on `queue` (NULL:
/// run on the driving thread itself).
void marbles_ip_hand_to_timer(marbles_foreign *foreign, void *queue, long long remaining, void *context, void (*work)(void *));
/// The tracker of the tracked work running on this thread (ForeignWork.c's), read inline on the
/// clock's path: outside runs a read costs one thread-local load, no call.
extern __thread __attribute__((tls_model("initial-exec"))) marbles_foreign *marbles_running_foreign;
/// The next `clock_gettime` (real time).
int marbles_ip_real_clock_gettime(clockid_t id, struct timespec *tp);
/// Whether FoundationNetworking's code is among the callers (a few frames up).
bool marbles_ip_called_from_networking(void);
/// Whether `caller` lies in the Swift runtime's or libdispatch's code (their own sleeps and
/// waits, which stay real).
bool marbles_ip_from_runtime(uintptr_t caller);
/// Whether `caller` lies in Foundation's code.
bool marbles_ip_from_foundation(uintptr_t caller);
#endif
#endif
