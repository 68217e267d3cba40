import Dispatch
import MarbleCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The threads that drive test bodies' virtual time (``TestScheduler/runBodyOnItsOwnThread(at:_:)``),
/// so that a body's wait for work on other threads never holds a thread of Swift's cooperative
/// pool. A thread that finished a body waits a few seconds for the next one: starting a thread
/// for each body cost about 90 µs a test, handing one over about a tenth of that.
enum DrivingThread {
    /// A thread waiting for a body.
    private final class Parked: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        var body: (@Sendable () -> Void)?
    }

    private static let lock = Lock()
    nonisolated(unsafe) private static var idle: [Parked] = []
    /// How long a thread with nothing to drive waits before it ends.
    private static let linger: DispatchTimeInterval = .seconds(5)

    /// Runs `body` on a driving thread: a waiting one, or a new one (8 MB of stack, as the main
    /// thread has); on the calling thread when no thread can be started.
    static func start(_ body: @escaping @Sendable () -> Void) {
        if let parked = lock.withLock({ idle.popLast() }) {
            parked.body = body
            parked.wake.signal()
            return
        }
        let parked = Parked()
        parked.body = body
        let work = Unmanaged.passRetained(parked).toOpaque()
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
        guard pthread_create(&thread, &attributes, run, work) == 0 else {
            // No thread to be had (the process is at its limit): the caller's thread drives, as
            // it did before driving threads.
            Unmanaged<Parked>.fromOpaque(work).release()
            return body()
        }
    }

    /// A driving thread's life: the body it was made for, then each one handed to it while it
    /// waits, until none comes for ``linger``.
    private static func serve(_ parked: Parked) {
        while let body = parked.body {
            parked.body = nil
            body()
            lock.withLock { idle.append(parked) }
            if parked.wake.wait(timeout: .now() + linger) == .timedOut {
                let ends = lock.withLock { () -> Bool in
                    guard let index = idle.firstIndex(where: { $0 === parked }) else { return false }
                    idle.remove(at: index)
                    return true
                }
                // Taken meanwhile: its body is on the way.
                if ends { return }
                parked.wake.wait()
            }
        }
    }

    #if canImport(Darwin)
        private static let run: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { work in
            serve(Unmanaged<Parked>.fromOpaque(work).takeRetainedValue())
            return nil
        }
    #else
        private static let run: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { work in
            serve(Unmanaged<Parked>.fromOpaque(work!).takeRetainedValue())
            return nil
        }
    #endif
}
