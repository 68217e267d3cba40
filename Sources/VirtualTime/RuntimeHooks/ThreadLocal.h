// What the hooks' files share (not part of the module's interface).
#ifndef MARBLES_THREAD_LOCAL_H
#define MARBLES_THREAD_LOCAL_H
// This code is linked into executables (test bundles, tools), never loaded with dlopen, so its
// thread-locals can take the initial-exec model: one load off the thread pointer, where the
// default for position-independent code calls __tls_get_addr on every access (the route is read
// at every clock read, job and sleep).
#define MARBLES_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))
#endif
