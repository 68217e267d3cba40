#ifndef MARBLES_CCLOCKINTERPOSER_H
#define MARBLES_CCLOCKINTERPOSER_H

// The libc interposer that puts a run's system clocks on virtual time (Linux), linked only into
// executables that link MarblesTesting.

/// The symbol (or library) the interposed `clock_gettime` chains to (registered with the hooks,
/// which tests ask: `RuntimeHooks.clockGettimeNext`).
const char *_Nonnull marbles_clock_gettime_next(void);

#endif
