#ifndef MARBLES_CCLOCKINTERPOSER_H
#define MARBLES_CCLOCKINTERPOSER_H
// The libc, libdispatch and CoreFoundation interposer that puts a run's system clocks, timers and
// waits on virtual time (Linux). It declares nothing: linked into executables that link
// MarblesTesting, it registers itself with CRuntimeHooks from a constructor.
#endif
