#ifndef MARBLES_CCONCURRENCYHOOKS_H
#define MARBLES_CCONCURRENCYHOOKS_H

#include <stdbool.h>

/// Receives a job enqueued on a thread that is driving a test scheduler.
typedef void (*marbles_capture_fn)(void *_Nonnull driver, void *_Nonnull job);

/// Installs the Swift runtime's global-enqueue hook once per process, chaining any hook already
/// there. Returns false when the runtime does not export `swift_task_enqueueGlobal_hook`.
bool marbles_enqueue_hook_install(marbles_capture_fn _Nonnull capture);

/// Routes jobs enqueued on the calling thread to `driver` (NULL: to the global executor, as
/// usual). Returns the driver that was set before, to restore it.
void *_Nullable marbles_enqueue_hook_set_driver(void *_Nullable driver);

#endif
