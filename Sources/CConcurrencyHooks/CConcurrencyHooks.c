#define _GNU_SOURCE
#include "CConcurrencyHooks.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

// The runtime's types, as its hook variable declares them (swift/Runtime/Concurrency.h).
typedef struct Job Job;
typedef __attribute__((swiftcall)) void (*original_fn)(Job *job);
typedef __attribute__((swiftcall)) void (*hook_fn)(Job *job, original_fn original);

static hook_fn previous_hook;
static marbles_capture_fn capture;
static marbles_capture_fn pending_capture;
static bool installed;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread void *current_driver;

// Every global enqueue in the process comes here: a thread-local read, then either the test
// scheduler driving this thread or the usual path.
static __attribute__((swiftcall)) void marbles_enqueue_hook(Job *job, original_fn original) {
    void *driver = current_driver;
    if (driver != NULL) {
        capture(driver, job);
    } else if (previous_hook != NULL) {
        previous_hook(job, original);
    } else {
        original(job);
    }
}

static void install(void) {
    hook_fn *slot = (hook_fn *)dlsym(RTLD_DEFAULT, "swift_task_enqueueGlobal_hook");
    if (slot == NULL) return;
    capture = pending_capture;
    previous_hook = *slot;
    *slot = marbles_enqueue_hook;
    installed = true;
}

bool marbles_enqueue_hook_install(marbles_capture_fn capture_fn) {
    pending_capture = capture_fn;
    pthread_once(&once, install);
    return installed;
}

void *marbles_enqueue_hook_set_driver(void *driver) {
    void *previous = current_driver;
    current_driver = driver;
    return previous;
}
