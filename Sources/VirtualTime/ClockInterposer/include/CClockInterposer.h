#ifndef MARBLES_CCLOCKINTERPOSER_H
#define MARBLES_CCLOCKINTERPOSER_H

// The libc interposer that puts the system clocks of a driving thread on virtual time (Linux):
// this executable's own `clock_gettime` and `dispatch_after_f`. Linked only where a test
// executable links it (MarblesTesting depends on this target); a program that links Marbles
// alone, and the command-line tools, keep libc's. The thread's clocks come from its route
// (CRuntimeHooks, `marbles_route_clocks`).

#include <stdbool.h>

/// Whether this process's `clock_gettime` is ours and found the Swift runtime's library (Linux).
bool marbles_clock_interposer_linked(void);

/// The symbol (or library) the interposed `clock_gettime` chains to (registered with the hooks,
/// which tests ask: `RuntimeHooks.clockGettimeNext`).
const char *_Nonnull marbles_clock_gettime_next(void);

#endif
