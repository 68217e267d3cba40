// What the interposer's files share (not part of the module's interface).
#ifndef MARBLES_INTERPOSER_SHARED_H
#define MARBLES_INTERPOSER_SHARED_H
#if defined(__linux__)
#include "../RuntimeHooks/Run.h"

extern char _dispatch_main_q[];
void dispatch_retain(void *object);
void dispatch_release(void *object);
#define marbles_ip_main_queue ((void *)_dispatch_main_q)
/// A slot's next definition of an interposed function, found now if not yet (inline: every
/// interposed call of the process takes it).
void *marbles_ip_find_next(void *_Atomic *slot, const char *name, const char *interceptor, void *ours);
static inline void *marbles_ip_next_in(void *_Atomic *slot, const char *name, const char *interceptor, void *ours) {
    void *next = atomic_load_explicit(slot, memory_order_acquire);
    return next != NULL ? next : marbles_ip_find_next(slot, name, interceptor, ours);
}
#define NEXT(slot, type, name, ours) ((type)marbles_ip_next_in((void *_Atomic *)&(slot), name, "__interceptor_" name, (void *)(ours)))
/// Declares interposed function `name` as its library does, its type `name_fn` and the slot of
/// its next definition, which `NEXT_OF(name)` finds.
#define INTERPOSED(result, name, ...)            \
    result name(__VA_ARGS__);                    \
    typedef result (*name##_fn)(__VA_ARGS__);    \
    static _Atomic(name##_fn) next_##name
#define NEXT_OF(name) NEXT(next_##name, name##_fn, #name, name)
#define CALLER ((uintptr_t)__builtin_return_address(0))
/// The members a submission from `caller` joins: none for the Swift runtime's and libdispatch's own.
marbles_members *marbles_ip_members_for(uintptr_t caller);
/// The members whose timers the calling thread sets on virtual time (its run's, or its work's).
marbles_members *marbles_ip_timers_here(void);
/// The virtual time left to a Dispatch deadline for `members`; false where it cannot be virtual.
bool marbles_ip_virtual_remaining(marbles_members *members, uint64_t when, long long *remaining);
/// Whether FoundationNetworking's code is among the callers (a few frames up).
bool marbles_ip_called_from_networking(void);
/// Whether `caller` lies in the Swift runtime's or libdispatch's code, or in Foundation's.
bool marbles_ip_from_runtime(uintptr_t caller);
bool marbles_ip_from_concurrency(uintptr_t caller);
bool marbles_ip_from_foundation(uintptr_t caller);
bool marbles_ip_from_executable(uintptr_t caller);

// MARK: The timer registry (timer sources, run-loop timers): a list under a `marbles_rank_list` lock,
// and what waits for the unlock: hand-offs (they may call Swift), releases (disposals call back), frees.

/// A shadowed timer; each kind's record begins with one.
typedef struct marbles_shadow {
    struct marbles_shadow *next;
    void *object;
    marbles_members *members;
    unsigned long generation;  // a new schedule, a cancel or an invalidation leaves older wake-ups stale
    long references;           // the list's, and each wake-up's and delivery's
} marbles_shadow;

typedef struct {
    pthread_mutex_t lock;
    marbles_shadow *list;
    /// How many are listed: the interposed calls pass by without the lock while none is.
    _Atomic long count;
    /// Lets go of a shadowed object, and frees a shadow with its last reference (both once the lock is dropped).
    void (*release_object)(void *object);
    void (*dispose)(marbles_shadow *shadow);
} marbles_registry;

/// A registry while locked, with what waits for the unlock.
typedef struct {
    marbles_registry *registry;
    int hands, released, dead;
    struct {
        marbles_members *members;
        void *queue, *context;
        long long remaining;
        void (*work)(void *);
    } hand[2];
    void *release[2];
    marbles_shadow *dispose[3];
} marbles_locked;

static inline bool marbles_registry_empty(marbles_registry *registry) {
    return atomic_load_explicit(&registry->count, memory_order_acquire) == 0;
}
void marbles_registry_lock(marbles_locked *locked, marbles_registry *registry);
/// Locks `registry` and finds `object`'s shadow (NULL: none); an empty registry stays unlocked.
marbles_shadow *marbles_registry_open(marbles_locked *locked, marbles_registry *registry, void *object);
marbles_shadow *marbles_registry_find(marbles_registry *registry, void *object);
/// Unlocks, then hands off, releases and frees what waited.
void marbles_registry_unlock(marbles_locked *locked);
/// Lists `shadow` (one reference, the list's); holds its members.
void marbles_registry_add(marbles_locked *locked, marbles_shadow *shadow);
/// Takes `shadow` off the list; its object is released after the unlock.
void marbles_registry_remove(marbles_locked *locked, marbles_shadow *shadow);
void marbles_registry_drop(marbles_locked *locked, marbles_shadow *shadow);
/// Hands `work(context)` to the driver after the unlock (`remaining` ns from now, on `queue`),
/// with a reference of `shadow`'s taken for it.
void marbles_registry_hand(
    marbles_locked *locked, marbles_shadow *shadow, void *queue, long long remaining, void *context, void (*work)(void *));
/// Arms a wake-up of `shadow` `remaining` ns from now: `woke` gets it, to pass to `marbles_registry_woken`.
void marbles_registry_arm(marbles_locked *locked, marbles_shadow *shadow, long long remaining, void (*woke)(void *));
/// The shadow a wake-up is for, and the generation it was armed in (stale when it differs); takes the wake-up.
marbles_shadow *marbles_registry_woken(void *wake, unsigned long *generation);
#endif
#endif
