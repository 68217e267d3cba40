#define _GNU_SOURCE
#include "CRuntimeHooks.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// Work the code under test hands to other threads from inside a run. The interposer
// (CClockInterposer) wraps each block, function or Foundation thread submitted on a driving
// thread, or from work already tracked, so that it begins and ends here; the driver waits, at the
// current virtual instant, until none is out, then runs what came back. Items are kept in a list
// for the message when the bound passes.

typedef struct item {
    long long sequence;
    marbles_foreign_kind kind;
    char label[96];
    long long submitted_ns;
    struct timespec began;
    struct item *next;
} item;

struct marbles_foreign {
    _Atomic long references;
    // Work out (not abandoned).
    _Atomic long pending;
    _Atomic long long now_ns;
    long long next_sequence;
    long out;
    item *items;
    void *owner;
    marbles_timer_fn timer;
};

// One lock and condition for every tracker: work ends rarely, and a tracker is made for every
// test scheduler, which should not pay for a mutex and a condition of its own.
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed;
static pthread_once_t changed_once = PTHREAD_ONCE_INIT;

static void make_condition(void) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
#if defined(__linux__)
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
#endif
    pthread_cond_init(&changed, &attributes);
    pthread_condattr_destroy(&attributes);
}

static __thread marbles_foreign *running_foreign;
static __thread long long running_sequence = -1;
static void (*submit_next)(void *, void *, void (*)(void *));

marbles_virtual_clocks *marbles_route_home(void);

static void retain(marbles_foreign *foreign) { atomic_fetch_add_explicit(&foreign->references, 1, memory_order_relaxed); }

static void release(marbles_foreign *foreign) {
    if (atomic_fetch_sub_explicit(&foreign->references, 1, memory_order_acq_rel) != 1) return;
    for (item *it = foreign->items; it != NULL;) {
        item *next = it->next;
        free(it);
        it = next;
    }
    free(foreign);
}

marbles_foreign *marbles_foreign_create(void *owner, marbles_timer_fn timer) {
    marbles_foreign *foreign = calloc(1, sizeof(marbles_foreign));
    if (foreign == NULL) abort();
    atomic_init(&foreign->references, 1);
    atomic_init(&foreign->pending, 0);
    atomic_init(&foreign->now_ns, 0);
    foreign->owner = owner;
    foreign->timer = timer;
    return foreign;
}


// Set and read on the driving thread only (the interposer asks on a driving thread).
void marbles_foreign_set_timer(marbles_foreign *foreign, void *owner, marbles_timer_fn timer) {
    foreign->owner = owner;
    foreign->timer = timer;
}

void marbles_foreign_submit_untracked(void *queue, void *context, void (*work)(void *)) { submit_next(queue, context, work); }

void marbles_foreign_release(marbles_foreign *foreign) {
    // Most runs handed nothing over: no lock, no clock read.
    if (atomic_load_explicit(&foreign->pending, memory_order_acquire) != 0) {
        char ignored[1];
        marbles_foreign_abandon(foreign, ignored, sizeof ignored);
    }
    release(foreign);
}



void *marbles_foreign_pending_address(marbles_foreign *foreign) { return (void *)&foreign->pending; }

void *marbles_foreign_now_address(marbles_foreign *foreign) { return (void *)&foreign->now_ns; }

marbles_foreign *marbles_foreign_here(void) {
    marbles_virtual_clocks *home = marbles_route_home();
    if (home == NULL) return running_foreign;
    if (home->foreign == NULL) home->foreign = marbles_foreign_create(home->foreign_owner != NULL ? home->foreign_owner : (void *)1, home->foreign_timer);
    return home->foreign;
}

long long marbles_foreign_current_sequence(void) { return running_foreign != NULL ? running_sequence : -1; }


long long marbles_foreign_begin(marbles_foreign *foreign, marbles_foreign_kind kind, const char *label) {
    item *it = calloc(1, sizeof(item));
    if (it == NULL) abort();
    it->kind = kind;
    snprintf(it->label, sizeof it->label, "%s", label);
    // On the driving thread the clocks give virtual now exactly (the published time is the last
    // step's); elsewhere (work submitted from tracked work) the instant being settled.
    marbles_virtual_clocks *clocks = marbles_route_clocks();
    it->submitted_ns = clocks != NULL && clocks->now_ns != NULL && marbles_route_foreign() == foreign ? clocks->now_ns(clocks->context)
                                                                           : atomic_load_explicit(&foreign->now_ns, memory_order_relaxed);
    clock_gettime(CLOCK_MONOTONIC, &it->began);
    retain(foreign);
    pthread_mutex_lock(&mutex);
    it->sequence = ++foreign->next_sequence;
    it->next = foreign->items;
    foreign->items = it;
    foreign->out += 1;
    atomic_fetch_add_explicit(&foreign->pending, 1, memory_order_release);
    pthread_mutex_unlock(&mutex);
    return it->sequence;
}

void marbles_foreign_end(marbles_foreign *foreign, long long sequence) {
    pthread_once(&changed_once, make_condition);
    pthread_mutex_lock(&mutex);
    for (item **link = &foreign->items; *link != NULL; link = &(*link)->next) {
        if ((*link)->sequence != sequence) continue;
        item *done = *link;
        *link = done->next;
        free(done);
        foreign->out -= 1;
        atomic_fetch_sub_explicit(&foreign->pending, 1, memory_order_release);
        break;
    }
    // Not found: it was abandoned (the bound passed), and no longer counts.
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
    release(foreign);
}

marbles_foreign_context marbles_foreign_enter(marbles_foreign *foreign, long long sequence) {
    marbles_foreign_context saved = {running_foreign, running_sequence};
    running_foreign = foreign;
    running_sequence = sequence;
    return saved;
}

void marbles_foreign_leave(marbles_foreign_context saved) {
    running_foreign = saved.foreign;
    running_sequence = saved.sequence;
}

typedef struct {
    marbles_foreign *foreign;
    long long sequence;
    void *context;
    void (*work)(void *);
} submitted;

void *marbles_foreign_wrap(marbles_foreign *foreign, marbles_foreign_kind kind, const char *label, void *context, void (*work)(void *)) {
    submitted *s = malloc(sizeof(submitted));
    if (s == NULL) abort();
    *s = (submitted){foreign, marbles_foreign_begin(foreign, kind, label), context, work};
    return s;
}

void marbles_foreign_run_wrapped(void *raw) {
    submitted *s = raw;
    marbles_foreign_context saved = marbles_foreign_enter(s->foreign, s->sequence);
    s->work(s->context);
    marbles_foreign_leave(saved);
    marbles_foreign_end(s->foreign, s->sequence);
    free(s);
}

static const char *queue_label(void *queue) {
    static const char *(*get_label)(void *);
    if (get_label == NULL) get_label = (const char *(*)(void *))dlsym(RTLD_DEFAULT, "dispatch_queue_get_label");
    const char *label = get_label != NULL ? get_label(queue) : NULL;
    return label != NULL && label[0] != 0 ? label : "(no label)";
}

void marbles_foreign_submit(marbles_foreign *foreign, void *queue, marbles_foreign_kind kind, void *context, void (*work)(void *)) {
    submit_next(queue, marbles_foreign_wrap(foreign, kind, queue_label(queue), context, work), marbles_foreign_run_wrapped);
}

bool marbles_foreign_wait(marbles_foreign *foreign, long long timeout_ns) {
    pthread_once(&changed_once, make_condition);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ns / 1000000000;
    deadline.tv_nsec += timeout_ns % 1000000000;
    if (deadline.tv_nsec >= 1000000000) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&mutex);
    int status = 0;
    while (foreign->out > 0 && status != ETIMEDOUT) status = pthread_cond_timedwait(&changed, &mutex, &deadline);
    bool drained = foreign->out == 0;
    pthread_mutex_unlock(&mutex);
    return drained;
}

static const char *kind_name(marbles_foreign_kind kind) {
    switch (kind) {
    case marbles_foreign_kind_block: return "block";
    case marbles_foreign_kind_function: return "function";
    case marbles_foreign_kind_thread: return "thread";
    case marbles_foreign_kind_timer: return "timer";
    }
    return "work";
}

long marbles_foreign_abandon(marbles_foreign *foreign, char *buffer, unsigned long size) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    size_t used = 0;
    buffer[0] = 0;
    pthread_mutex_lock(&mutex);
    long count = 0;
    for (item *it = foreign->items; it != NULL;) {
        long long age = (long long)(now.tv_sec - it->began.tv_sec) * 1000000000 + (now.tv_nsec - it->began.tv_nsec);
        if (used < size) {
            int written = snprintf(
                buffer + used, size - used, "%s\t%s\t%lld\t%lld\n", kind_name(it->kind), it->label, it->submitted_ns, age);
            if (written > 0) used += (size_t)written;
        }
        item *next = it->next;
        free(it);
        it = next;
        count += 1;
    }
    foreign->items = NULL;
    atomic_fetch_sub_explicit(&foreign->pending, foreign->out, memory_order_release);
    foreign->out = 0;
    pthread_mutex_unlock(&mutex);
    return count;
}

// Blocks, by their ABI (the runtime's copy and release, found once; the invoke function is the
// fourth word of a block literal).
typedef struct {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
} block_layout;

static void *(*block_copy)(const void *);
static void (*block_release)(const void *);
static pthread_once_t block_once = PTHREAD_ONCE_INIT;

static void find_block_runtime(void) {
    block_copy = (void *(*)(const void *))dlsym(RTLD_DEFAULT, "_Block_copy");
    block_release = (void (*)(const void *))dlsym(RTLD_DEFAULT, "_Block_release");
}

void *marbles_foreign_copy_block(void *block) {
    pthread_once(&block_once, find_block_runtime);
    return block_copy != NULL ? block_copy(block) : NULL;
}

void marbles_foreign_release_block(void *block) {
    if (block != NULL && block_release != NULL) block_release(block);
}

void marbles_foreign_invoke_block(void *block) {
    block_layout *layout = block;
    layout->invoke(block);
    marbles_foreign_release_block(block);
}

marbles_timer_fn marbles_foreign_timer(marbles_foreign *foreign) { return foreign->timer; }

void *marbles_foreign_owner(marbles_foreign *foreign) { return foreign->owner; }

void marbles_foreign_register_submit(void (*submit)(void *, void *, void (*)(void *))) { submit_next = submit; }
