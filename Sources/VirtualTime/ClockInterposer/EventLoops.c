// SwiftNIO's event loops on a run's clock (Linux; issue 69). A loop is an epoll instance with an
// eventfd (its wake-up) and a timerfd (its next scheduled task), made by code linked into the
// executable. A loop that a run wakes (a driving thread or a member writes its eventfd) or whose
// virtual timer comes serves that run for one iteration: from epoll_wait's return to its next
// call the thread is a member, so its clock reads are the run's, the jobs it resumes go to the
// driver, and the timer it sets (`timerfd_settime`) is a virtual wake-up, at whose instant the
// driver fires the real timerfd. What a member sends through a loop's socket flies, holding the
// run, until the other end in this process takes it (Go's rule), or until an answer comes from a
// peer outside it; the iteration that takes it serves the run. docs/DESIGN.md, "SwiftNIO's event loops".
#include "InterposerShared.h"

#if defined(__linux__)
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

INTERPOSED(int, epoll_ctl, int epfd, int op, int fd, struct epoll_event *event);
INTERPOSED(int, epoll_wait, int epfd, struct epoll_event *events, int count, int timeout);
INTERPOSED(int, eventfd_write, int fd, eventfd_t value);
INTERPOSED(int, timerfd_settime, int fd, int flags, const struct itimerspec *value, struct itimerspec *old);
INTERPOSED(ssize_t, write, int fd, const void *bytes, size_t count);
INTERPOSED(ssize_t, writev, int fd, const struct iovec *parts, int count);
INTERPOSED(int, connect, int fd, __CONST_SOCKADDR_ARG address, socklen_t length);
INTERPOSED(int, close, int fd);
INTERPOSED(ssize_t, read, int fd, void *bytes, size_t count);
INTERPOSED(int, accept4, int fd, __SOCKADDR_ARG address, socklen_t *length, int flags);
INTERPOSED(ssize_t, sendmsg, int fd, const struct msghdr *message, int flags);
INTERPOSED(ssize_t, recvmsg, int fd, struct msghdr *message, int flags);

enum { loop_limit = 32, fd_limit = 4096, epoll = 0, wake = 1, timer = 2, sock = 3 };
// A loop's socket: its peer not known yet, connected by a member to this process, or to a peer outside it.
enum { unwatched, in_process, here, to_peer };
typedef struct {
    int fds[3];  // its epoll instance, eventfd and timerfd
    marbles_member_context pending;  // the run the next iteration serves, and its work item (begun when woken)
    unsigned long generation;  // of the virtual timer: a newer one leaves older wake-ups stale
    marbles_members *timer_of;  // the run on whose clock its timer was last set (NULL: real), held; its thread's
} loop;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static loop loops[loop_limit];
// Loops made, and loops marked to serve a run (while none is, a wait's return takes no lock).
static _Atomic int loop_count, pending_count;
// The sockets the executable's code added to a loop, by fd.
static _Atomic unsigned char loop_socket[fd_limit];
// This thread's loop, the loop it serves a run for, and the work item it ends at its next wait;
// whether this iteration fired the loop's timer for the next (see epoll_wait).
static MARBLES_THREAD_LOCAL loop *mine, *serving;
static MARBLES_THREAD_LOCAL bool refired;
static MARBLES_THREAD_LOCAL marbles_member_context serving_saved, serving_item;
// Go's rule for two ends in this process: bytes a member sends through a socket, by the sender's
// fd, hold its run (`run`, a work item) until the other end has read as many; its connection
// (`connection`) until accepted; its close until the other end reads its end of stream (`eof`,
// kept by that end's fd); its datagrams until received (`inbox`, by the receiver's fd). Under the
// lock. `peer`: the other end's fd + 1, once matched (0: not yet).
typedef struct {
    marbles_member_context run, eof, connection, inbox;
    long long sent, taken, rest;  // rest: of what was sent, what the kernel did not take (written again first)
    long datagrams;  // in the inbox
} flight;
static flight flights[fd_limit];
static _Atomic int peer[fd_limit], flying;

#define LOCK() marbles_lock(&lock, marbles_rank_list)
#define UNLOCK() marbles_unlock(&lock, marbles_rank_list)

// What `fd` is: an eventfd (`wake`), a timerfd (`timer`), a socket (`sock`), or anything else (0).
static int kind_of(int fd) {
    char path[32], target[24] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (fd < 0 || fd >= fd_limit || readlink(path, target, sizeof target - 1) <= 0) return 0;
    if (strncmp(target, "socket:[", 8) == 0) return sock;
    return strcmp(target, "anon_inode:[eventfd]") == 0 ? wake : strcmp(target, "anon_inode:[timerfd]") == 0 ? timer : 0;
}

// Under the lock: the loop whose fd `which` is `fd` (an epoll instance's made when `create`, in
// the slot of a loop whose thread ended if there is one).
static loop *find(int fd, int which, bool create) {
    int count = atomic_load_explicit(&loop_count, memory_order_relaxed), slot = count;
    for (int i = 0; fd >= 0 && i < count; i++) {
        if (loops[i].fds[which] == fd) return &loops[i];
        if (loops[i].fds[epoll] < 0) slot = i;
    }
    if (!create || fd < 0 || slot == loop_limit) return NULL;
    loops[slot] = (loop){{fd, -1, -1}, {NULL, 0}, 0, NULL};
    if (slot == count) atomic_store_explicit(&loop_count, count + 1, memory_order_release);
    return &loops[slot];
}

// Under the lock: takes what `it` was marked to serve ({NULL, 0}: nothing).
static marbles_member_context take_pending(loop *it) {
    marbles_member_context taken = it != NULL ? it->pending : (marbles_member_context){NULL, 0};
    if (taken.members != NULL) it->pending.members = NULL, atomic_fetch_sub_explicit(&pending_count, 1, memory_order_release);
    return taken;
}

// Marks the loop whose fd `which` is `fd` to serve `members` at its next iteration (a work item
// of theirs until that iteration ends); `nudge`: woken now through its eventfd, as NIO wakes it.
static void serve(int fd, int which, marbles_members *members, bool nudge) {
    long long sequence = marbles_members_begin(members, marbles_work_block, "an event loop's iteration");
    LOCK();
    loop *it = find(fd, which, false);
    marbles_member_context replaced = take_pending(it);
    if (it != NULL) it->pending = (marbles_member_context){members, sequence}, atomic_fetch_add_explicit(&pending_count, 1, memory_order_release);
    int wake_fd = it != NULL && nudge ? it->fds[wake] : -1;
    UNLOCK();
    if (it == NULL) marbles_members_end(members, sequence);
    if (replaced.members != NULL) marbles_members_end(replaced.members, replaced.sequence);
    if (wake_fd >= 0) NEXT_OF(eventfd_write)(wake_fd, 1);
}

static bool named(int fd, bool own, struct sockaddr_in6 *name) {  // an IPv4 address fits too
    *name = (struct sockaddr_in6){0};
    int status = (own ? getsockname : getpeername)(fd, (struct sockaddr *)name, &(socklen_t){sizeof *name});
    return status == 0 && (name->sin6_family == AF_INET || name->sin6_family == AF_INET6);
}

// The fd of the other end of `fd` among the loops' sockets (-1: none found), matched by address
// once per connection.
static int peer_of(int fd) {
    int known = atomic_load_explicit(&peer[fd], memory_order_relaxed);
    struct sockaddr_in6 name, to, other;
    if (known > 0 || !named(fd, true, &name) || !named(fd, false, &to)) return known - 1;
    for (int it = 0; it < fd_limit; it++) {
        if (it == fd || atomic_load_explicit(&loop_socket[it], memory_order_relaxed) == unwatched) continue;
        if (!named(it, true, &other) || memcmp(&other, &to, sizeof to) != 0) continue;
        if (!named(it, false, &other) || memcmp(&other, &name, sizeof name) != 0) continue;
        atomic_store(&peer[it], fd + 1);
        atomic_store(&peer[fd], it + 1);
        return it;
    }
    return -1;
}

// `sent` more units through `fd` by `members` (a member's send, `what` it waits for), and `taken`
// by its other end. Returns the flight's run, held (NULL: none), in `ended` when all is taken.
static marbles_members *account(int fd, marbles_members *members, const char *what, long long sent, long long taken, marbles_member_context *ended) {
    long long sequence = members != NULL ? marbles_members_begin(members, marbles_work_io, what) : 0;
    LOCK();
    flight *it = &flights[fd];
    bool fresh = members != NULL && it->run.members == NULL;
    if (fresh) it->run = (marbles_member_context){members, sequence}, it->sent = it->taken = it->rest = 0, atomic_fetch_add(&flying, 1);
    it->sent += sent > it->rest ? sent - it->rest : 0, it->taken += taken;
    marbles_members *run = it->run.members;
    if (run != NULL) marbles_members_hold(run);
    if (run != NULL && it->taken >= it->sent) *ended = it->run, it->run.members = NULL, atomic_fetch_sub(&flying, 1);
    UNLOCK();
    if (members != NULL && !fresh) marbles_members_end(members, sequence);
    return run;
}

// Under the lock: a one-off flight taken from `slot` (an end of stream, a connection; none: NULL members).
static marbles_member_context take(marbles_member_context *slot) {
    marbles_member_context it = *slot;
    if (it.members != NULL) slot->members = NULL, atomic_fetch_sub(&flying, 1);
    return it;
}

// A member's one-off flight through `fd`, in `slot` of its flight: a connection, an end of stream
// to it, or one more datagram to it (`inbox`: one item for all of them).
static void put(marbles_members *members, int fd, marbles_member_context *slot, const char *what) {
    long long sequence = marbles_members_begin(members, marbles_work_io, what);
    LOCK();
    bool counted = slot == &flights[fd].inbox && flights[fd].datagrams++ > 0 && slot->members != NULL;
    marbles_member_context old = counted ? (marbles_member_context){members, sequence} : take(slot);
    if (!counted) *slot = (marbles_member_context){members, sequence}, atomic_fetch_add(&flying, 1);
    UNLOCK();
    if (old.members != NULL) marbles_members_end(old.members, old.sequence);
}

static void begin_serving(loop *it, marbles_member_context taken);

// `fd` took `units` (bytes read; 0: its end of stream; -1: `fd` is a connection just accepted; -2:
// a datagram). Its
// other end's flight ends when all it sent is taken (a peer outside the process: at any answer),
// and a loop's thread that took them serves that run until its next wait.
static void taking(int fd, long long units) {
    if (atomic_load_explicit(&flying, memory_order_relaxed) == 0 || fd < 0 || fd >= fd_limit) return;
    bool answer = atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) == to_peer;
    int from = answer ? fd : units > 0 || units == -1 ? peer_of(fd) : -1;
    marbles_member_context ended = {NULL, 0};
    marbles_members *run = from >= 0 && (answer || units > 0) ? account(from, NULL, NULL, 0, answer ? 1LL << 60 : units, &ended) : NULL;
    if (run == NULL && !answer && (units <= 0 && (units != -1 || from >= 0))) {
        LOCK();
        marbles_member_context *slot = units == 0 ? &flights[fd].eof : units == -2 ? &flights[fd].inbox : &flights[from].connection;
        bool last = units != -2 || (flights[fd].datagrams > 0 && --flights[fd].datagrams == 0);
        if ((run = slot->members) != NULL) marbles_members_hold(run);
        if (last) ended = take(slot);
        UNLOCK();
    }
    if (run == NULL) return;
    if (mine != NULL && serving == NULL && marbles_members_live(run)) {
        begin_serving(mine, (marbles_member_context){run, marbles_members_begin(run, marbles_work_block, "an event loop's iteration")});
    }
    if (ended.members != NULL) marbles_members_end(ended.members, ended.sequence);
    marbles_members_unhold(run);
}

// Before a member sends `units` through `fd`: they fly when its other end is in the process (what
// the kernel does not take now flies on until a later write sends it, or a close), or until an
// answer comes from a peer outside it.
static void fly(int fd, long long units) {
    int state = fd >= 0 && fd < fd_limit ? atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) : unwatched;
    marbles_members *members = state != unwatched ? marbles_member() : NULL;
    if (members == NULL || (state == in_process && peer_of(fd) < 0)) return;
    char what[96] = "bytes sent to a socket of this process, not read yet", host[INET6_ADDRSTRLEN] = "?";
    struct sockaddr_in6 to;
    if (state == to_peer && named(fd, false, &to)) {
        inet_ntop(to.sin6_family, to.sin6_family == AF_INET6 ? (void *)&to.sin6_addr : &((struct sockaddr_in *)&to)->sin_addr, host, sizeof host);
        snprintf(what, sizeof what, "a socket to %s port %d, waiting for its answer", host, ntohs(to.sin6_port));
    }
    marbles_member_context ended = {NULL, 0};
    marbles_members_unhold(account(fd, members, what, units, 0, &ended));
}

// A close: what flew through `fd` is no longer waited for.
static void land(int fd) {
    marbles_member_context ended = {NULL, 0};
    marbles_members *run = account(fd, NULL, NULL, 0, 1LL << 60, &ended);
    if (ended.members != NULL) marbles_members_end(ended.members, ended.sequence);
    if (run != NULL) marbles_members_unhold(run);
}

// An eventfd or timerfd that the executable's code adds to an epoll instance makes it a loop.
int epoll_ctl(int epfd, int op, int fd, struct epoll_event *event) {
    int kind = op == EPOLL_CTL_ADD && marbles_ip_from_executable(CALLER) ? kind_of(fd) : 0;
    if (kind == sock) atomic_compare_exchange_strong(&loop_socket[fd], &(unsigned char){unwatched}, in_process);
    if (kind == wake || kind == timer) {
        LOCK();
        loop *it = find(epfd, epoll, true);
        if (it != NULL) it->fds[kind] = fd;
        UNLOCK();
    }
    int result = NEXT_OF(epoll_ctl)(epfd, op, fd, event);
    // A socket a member registers (NIO: after its connect) serves the run once more, woken now:
    // that iteration may see the connection made, and the writes that follow are the run's.
    if (kind == sock && marbles_member() != NULL) serve(epfd, epoll, marbles_member(), true);
    return result;
}

// After any write through `fd` while it flies: what the kernel did not take is its rest, which NIO
// writes again first (counted once, whoever writes it).
static ssize_t wrote(int fd, long long count, ssize_t result) {
    if (atomic_load_explicit(&flying, memory_order_relaxed) == 0 || fd < 0 || fd >= fd_limit) return result;
    if (atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) == unwatched) return result;  // a log line, a file
    LOCK();
    if (flights[fd].run.members != NULL) flights[fd].rest = count - (result > 0 ? result : 0);
    UNLOCK();
    return result;
}

ssize_t write(int fd, const void *bytes, size_t count) {
    fly(fd, (long long)count);
    return wrote(fd, (long long)count, NEXT_OF(write)(fd, bytes, count));
}

ssize_t writev(int fd, const struct iovec *parts, int count) {
    long long total = 0;
    for (int i = 0; i < count; i++) total += (long long)parts[i].iov_len;
    fly(fd, total);
    return wrote(fd, total, NEXT_OF(writev)(fd, parts, count));
}

// Whether `to` is a peer outside the process: an IP address off loopback, or a port no socket of
// the loops is bound to.
static bool outside(const struct sockaddr_in6 *to) {
    if (to->sin6_family == AF_INET ? *(const uint8_t *)&((const struct sockaddr_in *)to)->sin_addr != 127 : !IN6_IS_ADDR_LOOPBACK(&to->sin6_addr)) return true;
    struct sockaddr_in6 bound;
    for (int fd = 0; fd < fd_limit; fd++) {
        if (loop_socket[fd] != unwatched && named(fd, true, &bound) && bound.sin6_port == to->sin6_port) return false;
    }
    return true;
}

// NIO connects before it adds the socket to its loop. A member's connection to this process
// flies until accepted; one to a peer outside it waits for nothing until a write.
int connect(int fd, __CONST_SOCKADDR_ARG address, socklen_t length) {
    const struct sockaddr_in6 *to = (const void *)address.__sockaddr__;
    if (fd >= 0 && fd < fd_limit && (to->sin6_family == AF_INET || to->sin6_family == AF_INET6) && marbles_member() != NULL) {
        bool far = outside(to);
        atomic_store(&loop_socket[fd], far ? to_peer : here);
        if (!far) put(marbles_member(), fd, &flights[fd].connection, "a connection to a socket of this process, not accepted yet");
    }
    return NEXT_OF(connect)(fd, address, length);
}

ssize_t read(int fd, void *bytes, size_t count) {
    ssize_t got = NEXT_OF(read)(fd, bytes, count);
    if (fd < 0 || fd >= fd_limit || atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) == unwatched) return got;
    int saved = errno;
    if (got >= 0 || errno != EAGAIN) taking(fd, got > 0 ? got : 0);  // an error answers too
    return errno = saved, got;
}

// The loop's socket bound to `to` (-1: none), where a datagram sent there arrives.
static int bound_to(const void *to, socklen_t length) {
    struct sockaddr_in6 address = {0}, bound;
    memcpy(&address, to, length < sizeof address ? length : sizeof address);
    if (address.sin6_family != AF_INET && address.sin6_family != AF_INET6) return -1;
    for (int fd = 0; fd < fd_limit; fd++) {
        if (loop_socket[fd] != unwatched && named(fd, true, &bound) && memcmp(&bound, &address, sizeof bound) == 0) return fd;
    }
    return -1;
}

// A member's datagram to a loop's socket of this process flies until that socket receives it.
ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    int to = message != NULL && message->msg_name != NULL && marbles_member() != NULL ? bound_to(message->msg_name, message->msg_namelen) : -1;
    if (to >= 0) put(marbles_member(), to, &flights[to].inbox, "a datagram sent to a socket of this process, not received yet");
    return NEXT_OF(sendmsg)(fd, message, flags);
}

ssize_t recvmsg(int fd, struct msghdr *message, int flags) {
    ssize_t got = NEXT_OF(recvmsg)(fd, message, flags);
    if (got >= 0 && fd < fd_limit && atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) != unwatched) taking(fd, -2);
    return got;
}

int accept4(int fd, __SOCKADDR_ARG address, socklen_t *length, int flags) {
    int accepted = NEXT_OF(accept4)(fd, address, length, flags);
    if (accepted >= 0) taking(accepted, -1);
    return accepted;
}

// A loop's socket closed: what flies between its two ends is no longer waited for, and a
// member's close flies to the other end as its end of stream.
static void closing(int fd) {
    marbles_members *members = marbles_member();
    int other = members != NULL ? peer_of(fd) : atomic_load_explicit(&peer[fd], memory_order_relaxed) - 1;
    LOCK();
    atomic_store(&peer[fd], 0);
    atomic_store(&loop_socket[fd], unwatched);
    if (other >= 0) atomic_compare_exchange_strong(&peer[other], &(int){fd + 1}, 0);
    flights[fd].datagrams = 0;
    marbles_member_context left[3] = {take(&flights[fd].eof), take(&flights[fd].connection), take(&flights[fd].inbox)};
    UNLOCK();
    for (int i = 0; i < 3; i++) {
        if (left[i].members != NULL) marbles_members_end(left[i].members, left[i].sequence);
    }
    land(fd);
    if (other >= 0) land(other);
    if (other >= 0 && members != NULL) put(members, other, &flights[other].eof, "an end of stream sent to a socket of this process, not read yet");
}

int close(int fd) {
    if (fd >= 0 && fd < fd_limit && atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) != unwatched) closing(fd);
    return NEXT_OF(close)(fd);
}

int eventfd_write(int fd, eventfd_t value) {
    // From a driving thread with virtual clocks (its members made now if not yet), or a member.
    bool ours = atomic_load_explicit(&loop_count, memory_order_relaxed) > 0 && marbles_ip_from_executable(CALLER);
    marbles_members *members = !ours ? NULL : marbles_route_virtual() != NULL ? marbles_members_here() : marbles_member();
    if (members != NULL) serve(fd, wake, members, false);
    return NEXT_OF(eventfd_write)(fd, value);
}

// On the loop's thread: its timer is set on `members`' clock now (NULL: the real one).
static void own_timer(loop *it, marbles_members *members) {
    marbles_members *old = it->timer_of;
    if (members != NULL) marbles_members_hold(members);
    it->timer_of = members;
    if (old != NULL) marbles_members_unhold(old);
}

// Ends the iteration this thread served a run for.
static void stop_serving(void) {
    if (serving == NULL) return;
    marbles_members_leave(serving_saved);
    marbles_members_end(serving_item.members, serving_item.sequence);
    serving = NULL;
}

// A loop's thread that ends (its group shut down) ends the iteration it served, gives up the
// wake-up it did not take (the run would wait for it) and frees the loop's slot.
static pthread_key_t exit_key;

static void loop_thread_exits(void *raw) {
    stop_serving();
    own_timer(raw, NULL);
    LOCK();
    marbles_member_context left = take_pending(raw);
    *(loop *)raw = (loop){{-1, -1, -1}, {NULL, 0}, 0, NULL};  // gone: its fd numbers are free for others
    UNLOCK();
    if (left.members != NULL) marbles_members_end(left.members, left.sequence);
}

// On `it`'s thread: the rest of this iteration serves `taken`'s run (none: nothing; work item `taken`).
// NIO sets its timerfd again only for a deadline earlier than the one it believes set: one on
// another run's clock, or a finished run's (whose wake-up never fires it), hides the deadlines of
// the run served now. Fired at once, it makes NIO set it again, on that run's clock.
static void begin_serving(loop *it, marbles_member_context taken) {
    marbles_members *owner = it->timer_of;
    if (taken.members != NULL ? owner != taken.members : owner != NULL && !marbles_members_live(owner)) {
        // Two runs alive on one loop (tests in parallel on a shared loop) mix their deadlines.
        for (int i = 0; owner != NULL && taken.members != NULL && marbles_members_live(owner) && i < 2; i++) {
            marbles_members_note_escape(i ? owner : taken.members, "an event loop's timer", "%s", "was set on two tests' clocks at once: tests in parallel on a shared loop (the singleton's) mix their deadlines; serialize them, or give each its own group");
        }
        own_timer(it, taken.members);
        if (taken.members != NULL) serve(it->fds[epoll], epoll, taken.members, false), refired = true;  // the iteration that sees it too
        NEXT_OF(timerfd_settime)(it->fds[timer], 0, &(struct itimerspec){{0, 0}, {0, 1}}, NULL);
    }
    if (taken.members != NULL) {
        serving = it, serving_item = taken;
        serving_saved = marbles_members_enter(taken.members, taken.sequence);
    }
}

int epoll_wait(int epfd, struct epoll_event *events, int count, int timeout) {
    stop_serving();
    refired = false;
    int ready = NEXT_OF(epoll_wait)(epfd, events, count, timeout);
    bool look = atomic_load_explicit(&pending_count, memory_order_acquire) > 0 || (mine == NULL && atomic_load_explicit(&loop_count, memory_order_relaxed) > 0);
    if ((!look && (mine == NULL || mine->timer_of == NULL)) || !marbles_ip_from_executable(CALLER)) return ready;
    LOCK();
    loop *it = find(epfd, epoll, false);
    marbles_member_context taken = take_pending(it);
    UNLOCK();
    if (it != NULL && mine == NULL) mine = it, pthread_setspecific(exit_key, it);  // watched by its thread-exit key
    if (it != NULL) begin_serving(it, taken);
    return ready;
}

typedef struct {
    loop *loop;
    unsigned long generation;
    marbles_members *members;
} due_timer;

// At a loop timer's virtual instant, on the driving thread: the loop serves the run, woken by its
// real timerfd set to fire at once (NIO arms its timerfd again only once it saw it fire).
static void timer_came(void *raw) {
    due_timer due = *(due_timer *)raw;
    free(raw);
    LOCK();
    int fd = due.loop->generation == due.generation ? due.loop->fds[timer] : -1;
    UNLOCK();
    if (fd >= 0) {
        serve(fd, timer, due.members, false);
        NEXT_OF(timerfd_settime)(fd, 0, &(struct itimerspec){{0, 0}, {0, 1}}, NULL);
    }
    marbles_members_unhold(due.members);
}

__attribute__((constructor)) static void make_exit_key(void) { pthread_key_create(&exit_key, loop_thread_exits); }
void (*const marbles_loop_timer_work)(void *) = timer_came;

int timerfd_settime(int fd, int flags, const struct itimerspec *value, struct itimerspec *old) {
    marbles_members *members = serving != NULL && fd == serving->fds[timer] ? marbles_member() : NULL;
    long long remaining = value != NULL ? marbles_ns_of(&value->it_value) : 0;
    if (members == NULL || (flags & TFD_TIMER_ABSTIME) != 0 || remaining == 0 || value->it_interval.tv_sec != 0 || value->it_interval.tv_nsec != 0) {
        if (mine != NULL && fd == mine->fds[timer]) own_timer(mine, NULL);
        return NEXT_OF(timerfd_settime)(fd, flags, value, old);
    }
    own_timer(serving, members);
    due_timer *due = marbles_allocate(sizeof(due_timer));
    LOCK();
    *due = (due_timer){serving, ++serving->generation, members};
    UNLOCK();
    marbles_members_hold(members);
    marbles_members_hand(members, remaining, NULL, due, timer_came);
    // The real timer never fires on its own: the run's wake-up fires it (at once when this
    // iteration fired it for the next, which serves the run: NIO then sets it again).
    struct itimerspec never = {{0, 0}, {0, refired}};
    return NEXT_OF(timerfd_settime)(fd, flags, &never, old);
}
#endif
