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
    }
#else
    nonisolated func interposedCallBenchmarks() {}
#endif
