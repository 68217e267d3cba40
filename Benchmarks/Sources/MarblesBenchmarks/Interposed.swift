import Foundation

#if canImport(Glibc)
    import Glibc

    /// What the test-only interposer costs outside runs (issue 67): each call a process that links
    /// MarblesTesting makes (here, this executable's definition, found with `RTLD_DEFAULT`) against
    /// the next definition (libdispatch's or libc's, `RTLD_NEXT`), both through a function pointer,
    /// in one process. Outside runs each interposed wait reads a thread-local and each signal an
    /// atomic before it goes on.
    nonisolated func interposedCallBenchmarks() {
        typealias Create = @convention(c) (Int) -> OpaquePointer?
        typealias Signal = @convention(c) (OpaquePointer) -> Int
        typealias Wait = @convention(c) (OpaquePointer, UInt64) -> Int
        typealias CondSignal = @convention(c) (UnsafeMutablePointer<pthread_cond_t>) -> Int32
        typealias Sleep = @convention(c) (UnsafePointer<timespec>, UnsafeMutablePointer<timespec>?) -> Int32
        func symbol<T>(_ name: String, next: Bool, as type: T.Type) -> T {
            let handle = UnsafeMutableRawPointer(bitPattern: next ? -1 : 0)  // RTLD_NEXT, RTLD_DEFAULT
            guard let address = dlsym(handle, name) else { fatalError("no \(name)") }
            return unsafeBitCast(address, to: type)
        }
        let count = 100_000
        let create = symbol("dispatch_semaphore_create", next: true, as: Create.self)
        guard let semaphore = create(0) else { fatalError("no semaphore") }
        func semaphoreRound(next: Bool) -> Contender {
            let signal = symbol("dispatch_semaphore_signal", next: next, as: Signal.self)
            let wait = symbol("dispatch_semaphore_wait", next: next, as: Wait.self)
            return Contender(next ? "libdispatch's" : "interposed") {
                for _ in 0..<count {
                    _ = signal(semaphore)
                    precondition(wait(semaphore, 0) == 0)
                }
            }
        }
        compare(
            "a semaphore signalled and taken, outside runs", unit: .nanoseconds(per: count, "ns/pair"),
            [
                semaphoreRound(next: true), semaphoreRound(next: false),
            ])
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        pthread_cond_init(condition, nil)
        func conditionRound(next: Bool) -> Contender {
            let signal = symbol("pthread_cond_signal", next: next, as: CondSignal.self)
            return Contender(next ? "libc's" : "interposed") {
                for _ in 0..<count { precondition(signal(condition) == 0) }
            }
        }
        compare(
            "a condition signalled with no waiter, outside runs", unit: .nanoseconds(per: count, "ns/call"),
            [
                conditionRound(next: true), conditionRound(next: false),
            ])
        func sleepRound(next: Bool) -> Contender {
            let sleep = symbol("nanosleep", next: next, as: Sleep.self)
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            return Contender(next ? "libc's" : "interposed") {
                for _ in 0..<1000 { precondition(sleep(&zero, nil) == 0) }
            }
        }
        compare("nanosleep(0), outside runs", unit: .nanoseconds(per: 1000, "ns/call"), [sleepRound(next: true), sleepRound(next: false)])
        // Issue 69 interposes `read`, `write` and `close` for sockets to a peer in another process:
        // every call of the process passes a range check and an atomic load first.
        typealias Read = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
        typealias Write = @convention(c) (Int32, UnsafeRawPointer?, Int) -> Int
        typealias Close = @convention(c) (Int32) -> Int32
        let zero = open("/dev/zero", O_RDONLY)
        let null = open("/dev/null", O_WRONLY)
        var byte: UInt8 = 0
        func ioRound(next: Bool) -> Contender {
            let read = symbol("read", next: next, as: Read.self)
            let write = symbol("write", next: next, as: Write.self)
            return Contender(next ? "libc's" : "interposed") {
                for _ in 0..<count {
                    precondition(read(zero, &byte, 1) == 1)
                    precondition(write(null, &byte, 1) == 1)
                }
            }
        }
        compare(
            "a 1-byte read of /dev/zero and write to /dev/null, outside runs", unit: .nanoseconds(per: count, "ns/pair"),
            [ioRound(next: true), ioRound(next: false)])
        func closeRound(next: Bool) -> Contender {
            let close = symbol("close", next: next, as: Close.self)
            return Contender(next ? "libc's" : "interposed") {
                for _ in 0..<count { precondition(close(dup(zero)) == 0) }
            }
        }
        compare(
            "close(dup(fd)), outside runs", unit: .nanoseconds(per: count, "ns/pair"), [closeRound(next: true), closeRound(next: false)])
        // A 1-byte datagram a UDP socket on loopback sends to itself and receives.
        typealias SendMessage = @convention(c) (Int32, UnsafePointer<msghdr>?, Int32) -> Int
        typealias ReceiveMessage = @convention(c) (Int32, UnsafeMutablePointer<msghdr>?, Int32) -> Int
        let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                precondition(bind(udp, $0, length) == 0 && getsockname(udp, $0, &length) == 0)
            }
        }
        func datagramRound(next: Bool) -> Contender {
            let send = symbol("sendmsg", next: next, as: SendMessage.self)
            let receive = symbol("recvmsg", next: next, as: ReceiveMessage.self)
            return Contender(next ? "libc's" : "interposed") {
                withUnsafeMutablePointer(to: &address) { name in
                    withUnsafeMutablePointer(to: &byte) { payload in
                        var part = iovec(iov_base: UnsafeMutableRawPointer(payload), iov_len: 1)
                        withUnsafeMutablePointer(to: &part) { parts in
                            var message = msghdr(
                                msg_name: UnsafeMutableRawPointer(name), msg_namelen: length, msg_iov: parts, msg_iovlen: 1,
                                msg_control: nil,
                                msg_controllen: 0, msg_flags: 0)
                            for _ in 0..<count {
                                precondition(send(udp, &message, 0) == 1)
                                precondition(receive(udp, &message, 0) == 1)
                            }
                        }
                    }
                }
            }
        }
        compare(
            "a 1-byte datagram sent to itself (sendmsg) and received (recvmsg), outside runs", unit: .nanoseconds(per: count, "ns/pair"),
            [datagramRound(next: true), datagramRound(next: false)])
    }
#else
    nonisolated func interposedCallBenchmarks() {}
#endif
