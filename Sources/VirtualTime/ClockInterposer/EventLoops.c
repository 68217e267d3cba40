// SwiftNIO's event loops on a run's clock (Linux; issue 69). A loop is an epoll instance with an
// eventfd (its wake-up) and a timerfd (its next scheduled task), made by code linked into the
// executable. A loop that a run wakes (a driving thread or a member writes its eventfd) or whose
// virtual timer comes serves that run for one iteration: from epoll_wait's return to its next
// call the thread is a member, so its clock reads are the run's, the jobs it resumes go to the
// driver, and the timer it sets (`timerfd_settime`) is a virtual wake-up, at whose instant the
// driver fires the real timerfd. A member that sends through one of the loops' sockets (a write,
// a connect) makes every loop serve its run once, woken now: the other end may be a loop of this
// process, and time stands still until each has looked. A socket a member connects to a peer
// outside the process (off loopback, or a port no loop's socket is bound to) holds time still
// from a member's write until an answer is read. docs/DESIGN.md, "SwiftNIO's event loops".
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

enum { loop_limit = 32, fd_limit = 4096, epoll = 0, wake = 1, timer = 2, sock = 3 };
// A loop's socket: to this process (or not known), or to a peer outside it, awaiting an answer.
enum { unwatched, in_process, to_peer, awaited };
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
// The sockets the executable's code added to a loop, by fd, and those a member's write left part
// of its bytes to (the kernel's buffer was full): time stands still until a write finishes them.
static _Atomic unsigned char loop_socket[fd_limit];
static _Atomic bool unwritten[fd_limit];
// This thread's loop, the loop it serves a run for, and the work item it ends at its next wait;
// whether this iteration fired the loop's timer for the next (see epoll_wait).
static MARBLES_THREAD_LOCAL loop *mine, *serving;
static MARBLES_THREAD_LOCAL bool refired;
static MARBLES_THREAD_LOCAL marbles_member_context serving_saved, serving_item;

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
    // A socket a member registers may hold bytes already: its loop serves the run once more.
    if (kind == sock && marbles_member() != NULL) serve(epfd, epoll, marbles_member(), true);
    return result;
}

// `result` of a write or connect through `fd`: when a member sent (`sent`) through one of the
// loops' sockets, every loop serves its run. errno is kept (NIO reads a connect's EINPROGRESS).
static ssize_t sending(int fd, ssize_t result, bool sent) {
    bool ours = sent && fd >= 0 && fd < fd_limit && atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) && marbles_running.members != NULL;
    marbles_members *members = ours ? marbles_member() : NULL;
    if (members == NULL) return result;
    int saved = errno, epolls[loop_limit], count = 0;
    unsigned char state = to_peer;
    if (result > 0 && atomic_compare_exchange_strong(&loop_socket[fd], &state, awaited)) {  // a write: a connect awaits nothing yet
        struct sockaddr_in6 peer = {0};  // an IPv4 address keeps its port where IPv6 does
        char host[INET6_ADDRSTRLEN] = "?", label[96];
        getpeername(fd, (struct sockaddr *)&peer, &(socklen_t){sizeof peer});
        inet_ntop(peer.sin6_family, peer.sin6_family == AF_INET6 ? (void *)&peer.sin6_addr : &((struct sockaddr_in *)&peer)->sin_addr, host, sizeof host);
        snprintf(label, sizeof label, "a socket to %s port %d, waiting for its answer", host, ntohs(peer.sin6_port));
        marbles_io_begin(&loop_socket[fd], NULL, label);
    }
    LOCK();
    for (int i = 0; i < atomic_load_explicit(&loop_count, memory_order_relaxed); i++) epolls[count++] = loops[i].fds[epoll];
    UNLOCK();
    for (int i = 0; i < count; i++) serve(epolls[i], epoll, members, true);
    return errno = saved, result;
}

// A write through a loop's socket that left bytes for later (`rest`) holds the run of the member
// that wrote until one writes all it was given (NIO writes the rest when the socket is writable
// again, in an iteration the run did not wake). errno is kept.
static ssize_t written(int fd, ssize_t result, size_t count) {
    bool rest = result < 0 ? errno == EAGAIN : (size_t)result < count;
    if (fd < 0 || fd >= fd_limit || atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) == unwatched) return result;
    int saved = errno;
    if (rest && marbles_member() != NULL && !atomic_exchange(&unwritten[fd], true)) marbles_io_begin(&unwritten[fd], NULL, "a write to a socket, waiting for its reader");
    if (!rest && atomic_exchange(&unwritten[fd], false)) marbles_io_end(&unwritten[fd]);
    errno = saved;
    return sending(fd, result, result > 0);
}

ssize_t write(int fd, const void *bytes, size_t count) { return written(fd, NEXT_OF(write)(fd, bytes, count), count); }

ssize_t writev(int fd, const struct iovec *parts, int count) {
    size_t total = 0;
    for (int i = 0; i < count; i++) total += parts[i].iov_len;
    return written(fd, NEXT_OF(writev)(fd, parts, count), total);
}

// Whether `to` is a peer outside the process: an IP address off loopback, or a port no socket of
// the loops is bound to (a Unix socket's peer is not known: in the process, as before).
static bool outside(const struct sockaddr_in6 *to) {
    if (to->sin6_family != AF_INET && to->sin6_family != AF_INET6) return false;
    if (to->sin6_family == AF_INET ? *(const uint8_t *)&((const struct sockaddr_in *)to)->sin_addr != 127 : !IN6_IS_ADDR_LOOPBACK(&to->sin6_addr)) return true;
    struct sockaddr_in6 bound;  // an IPv4 address keeps its port where IPv6 does
    for (int fd = 0; fd < fd_limit; fd++) {
        if (loop_socket[fd] != unwatched && getsockname(fd, (void *)&bound, &(socklen_t){sizeof bound}) == 0 && bound.sin6_port == to->sin6_port) return false;
    }
    return true;
}

int connect(int fd, __CONST_SOCKADDR_ARG address, socklen_t length) {
    // NIO connects before it adds the socket to its loop.
    if (fd >= 0 && fd < fd_limit && marbles_member() != NULL && outside((const void *)address.__sockaddr__)) atomic_store(&loop_socket[fd], to_peer);
    int result = NEXT_OF(connect)(fd, address, length);
    return (int)sending(fd, result, result == 0 || errno == EINPROGRESS);
}

// The first answer read from a peer outside the process ends the wait a member's send began.
ssize_t read(int fd, void *bytes, size_t count) {
    ssize_t got = NEXT_OF(read)(fd, bytes, count);
    if (fd < 0 || fd >= fd_limit || atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) != awaited) return got;
    unsigned char state = awaited;
    bool answered = got >= 0 || errno != EAGAIN;
    int saved = errno;
    if (answered && atomic_compare_exchange_strong(&loop_socket[fd], &state, to_peer)) marbles_io_end(&loop_socket[fd]);
    return errno = saved, got;
}

int close(int fd) {
    if (fd >= 0 && fd < fd_limit && atomic_load_explicit(&loop_socket[fd], memory_order_relaxed) != unwatched && atomic_exchange(&loop_socket[fd], unwatched) == awaited) marbles_io_end(&loop_socket[fd]);
    if (fd >= 0 && fd < fd_limit && atomic_load_explicit(&unwritten[fd], memory_order_relaxed) && atomic_exchange(&unwritten[fd], false)) marbles_io_end(&unwritten[fd]);
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
    // NIO sets its timerfd again only for a deadline earlier than the one it believes set: one on
    // another run's clock, or a finished run's (whose wake-up never fires it), hides the deadlines
    // of the run served now. Fired at once, it makes NIO set it again, on that run's clock.
    marbles_members *owner = it != NULL ? it->timer_of : NULL;
    if (it != NULL && (taken.members != NULL ? owner != taken.members : owner != NULL && !marbles_members_live(owner))) {
        // Two runs alive on one loop (tests in parallel on a shared loop) mix their deadlines.
        for (int i = 0; owner != NULL && taken.members != NULL && marbles_members_live(owner) && i < 2; i++) {
            marbles_members_note_escape(i ? owner : taken.members, "an event loop's timer", "%s", "was set on two tests' clocks at once: tests in parallel on a shared loop (the singleton's) mix their deadlines; serialize them, or give each its own group");
        }
        own_timer(it, taken.members);
        if (taken.members != NULL) serve(epfd, epoll, taken.members, false), refired = true;  // the iteration that sees it too
        NEXT_OF(timerfd_settime)(it->fds[timer], 0, &(struct itimerspec){{0, 0}, {0, 1}}, NULL);
    }
    if (taken.members != NULL) {
        serving = it, serving_item = taken;
        serving_saved = marbles_members_enter(taken.members, taken.sequence);
    }
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
