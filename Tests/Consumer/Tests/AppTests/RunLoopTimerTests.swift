#if os(Linux)
    import Foundation
    import MarblesTesting
    import Testing

    /// A countdown as apps write one: a main-actor model with a repeating run-loop `Timer`.
    @MainActor
    final class Countdown {
        private(set) var remaining: Int
        private var timer: Timer?

        init(from start: Int) { remaining = start }

        func start() {
            timer = Timer.scheduledTimer(withTimeInterval: 0.3, repeats: true) { [weak self] timer in
                let done = MainActor.assumeIsolated {
                    guard let self else { return true }
                    self.remaining -= 1
                    return self.remaining == 0
                }
                if done { timer.invalidate() }
            }
        }
    }

    // Issue 59: run-loop timers in an app's tests, on virtual time (Linux; on Apple platforms
    // the main run loop runs them in real time).
    @Suite("An app's run-loop timers on virtual time", .noPortabilityWarning)
    struct RunLoopTimerTests {
        @MainActor
        @Test(.virtualTime) func countsDownEveryThreeFrames() async throws {
            let countdown = Countdown(from: 2)
            countdown.start()
            try await Task.sleep(for: .milliseconds(300))
            #expect(countdown.remaining == 1)
            try await Task.sleep(for: .milliseconds(300))
            #expect(countdown.remaining == 0)
        }

        /// Each escape left names itself: a timer in a mode the run does not drive, a Dispatch
        /// timer with a wall-clock deadline (`make consumer-check` reads the messages).
        @Test(.enabled(if: ProcessInfo.processInfo.environment["CONSUMER_ESCAPE_DEMO"] == "1"))
        func escapesNameThemselves() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            scheduler.run {
                scheduler.schedule(after: .milliseconds(200)) {
                    let timer = Timer(timeInterval: 1, repeats: false) { _ in }
                    RunLoop.current.add(timer, forMode: RunLoop.Mode("custom"))
                    let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "wall-clock"))
                    source.setEventHandler {}
                    source.schedule(wallDeadline: .now() + .seconds(60))
                    source.resume()
                    timer.invalidate()
                    source.cancel()
                }
            }
        }
    }
#endif
