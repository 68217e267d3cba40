#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads that drive a test body's virtual time (``TestScheduler/runBodyOnItsOwnThread(at:_:)``):
/// one a body, detached, so that a body's wait for work on other threads never holds a thread of
/// Swift's cooperative pool.
enum DrivingThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new thread (8 MB of stack, as the main thread has).
    static func start(_ body: @escaping @Sendable () -> Void) {
        let work = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let status = pthread_create(&thread, &attributes, run, work)
        precondition(status == 0, "could not start a thread to drive a test body on virtual time (pthread_create: \(status))")
    }

    #if canImport(Darwin)
        private static let run: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { work in
            Unmanaged<Work>.fromOpaque(work).takeRetainedValue().body()
            return nil
        }
    #else
        private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { work in
            Unmanaged<Work>.fromOpaque(work!).takeRetainedValue().body()
            return nil
        }
    #endif
}
