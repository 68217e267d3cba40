// The timer registry every shadowed timer kind shares (InterposerShared.h).
#include "InterposerShared.h"

#if defined(__linux__)
typedef struct {
    marbles_shadow *shadow;
    unsigned long generation;
} wake;

void marbles_registry_lock(marbles_locked *locked, marbles_registry *registry) {
    *locked = (marbles_locked){.registry = registry};
    marbles_lock(&registry->lock, marbles_rank_list);
}

marbles_shadow *marbles_registry_find(marbles_registry *registry, void *object) {
    for (marbles_shadow *it = registry->list; it != NULL; it = it->next) {
        if (it->object == object) return it;
    }
    return NULL;
}

marbles_shadow *marbles_registry_open(marbles_locked *locked, marbles_registry *registry, void *object) {
    if (marbles_registry_empty(registry)) return *locked = (marbles_locked){0}, NULL;
    marbles_registry_lock(locked, registry);
    return marbles_registry_find(registry, object);
}

void marbles_registry_unlock(marbles_locked *locked) {
    marbles_registry *registry = locked->registry;
    if (registry == NULL) return;
    marbles_unlock(&registry->lock, marbles_rank_list);
    for (int i = 0; i < locked->hands; i++) {
        __typeof__(locked->hand[0]) *it = &locked->hand[i];
        marbles_members_hand(it->members, it->remaining, it->queue, it->context, it->work);
    }
    for (int i = 0; i < locked->released; i++) registry->release_object(locked->release[i]);
    for (int i = 0; i < locked->dead; i++) {
        marbles_members_unhold(locked->dispose[i]->members);
        registry->dispose(locked->dispose[i]);
    }
}

void marbles_registry_add(marbles_locked *locked, marbles_shadow *shadow) {
    marbles_registry *registry = locked->registry;
    // The members outlive their run while a shadow may still name them (an escape noted later).
    marbles_members_hold(shadow->members);
    shadow->references = 1;
    shadow->next = registry->list;
    registry->list = shadow;
    atomic_fetch_add_explicit(&registry->count, 1, memory_order_release);
}

void marbles_registry_drop(marbles_locked *locked, marbles_shadow *shadow) {
    if (--shadow->references > 0) return;
    if (locked->dead == 3) abort();
    locked->dispose[locked->dead++] = shadow;
}

void marbles_registry_remove(marbles_locked *locked, marbles_shadow *shadow) {
    marbles_registry *registry = locked->registry;
    marbles_shadow **link = &registry->list;
    while (*link != shadow) link = &(*link)->next;
    *link = shadow->next;
    atomic_fetch_sub_explicit(&registry->count, 1, memory_order_release);
    shadow->generation += 1;
    if (locked->released == 2) abort();
    locked->release[locked->released++] = shadow->object;
    marbles_registry_drop(locked, shadow);
}

void marbles_registry_hand(
    marbles_locked *locked, marbles_shadow *shadow, void *queue, long long remaining, void *context, void (*work)(void *)) {
    if (locked->hands == 2) abort();
    shadow->references += 1;
    locked->hand[locked->hands++] = (__typeof__(locked->hand[0])){shadow->members, queue, context, remaining, work};
}

void marbles_registry_arm(marbles_locked *locked, marbles_shadow *shadow, long long remaining, void (*woke)(void *)) {
    wake *next = marbles_allocate(sizeof(wake));
    *next = (wake){shadow, shadow->generation};
    marbles_registry_hand(locked, shadow, NULL, remaining, next, woke);
}

marbles_shadow *marbles_registry_woken(void *raw, unsigned long *generation) {
    wake due = *(wake *)raw;
    free(raw);
    *generation = due.generation;
    return due.shadow;
}

#endif
