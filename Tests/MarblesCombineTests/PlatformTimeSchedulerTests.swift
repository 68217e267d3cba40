#if canImport(Combine) || OpenCombine
    import Dispatch
    import Foundation
    import MarblesCombine
    import MarblesTesting
    import Testing

    /// Code written against the platform's schedulers, untouched for the test.
    struct DispatchSearch {
        /// Generic over the scheduler, with DispatchQueue's time types (how such code is written).
        static func results<S: CombineScheduler>(
            _ queries: some Publisher<String, Never>, scheduler: S
        ) -> AnyPublisher<String, Never> where S.SchedulerTimeType == DispatchQueue.SchedulerTimeType {
            queries
                .debounce(for: .milliseconds(300), scheduler: scheduler)
                .map { $0.uppercased() }
                .eraseToAnyPublisher()
        }
    }

    @Suite("Combine schedulers with the platform's time types")
    struct PlatformTimeSchedulerTests {
        @Test("code typed to DispatchQueue.SchedulerTimeType runs on virtual time")
        func dispatchQueueTyped() {
            let scheduler = TestScheduler(frame: .milliseconds(100))
            scheduler.run {
                let queries = scheduler.hotPublisher("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
                scheduler.expect(DispatchSearch.results(queries, scheduler: scheduler.dispatchQueue))
                    .toBe("------x------y|", values: ["x": "SWIFT", "y": "RX"])
            }
        }

        #if os(Linux)
            /// Issue 59: the queue hard-coded, nothing injected. The debounce arms a repeating
            /// Dispatch timer source, which fires on virtual time: on the main queue in the
            /// scheduler's loop (the test is on the main actor), on a queue of its own as work the
            /// run waits for.
            @MainActor
            @Test(
                "debounce on a hard-coded DispatchQueue runs on virtual time", .noPortabilityWarning,
                arguments: [DispatchQueue.main, DispatchQueue(label: "search")])
            func debounceOnAHardCodedQueue(_ queue: DispatchQueue) {
                let reporter = MarbleFailure.Collector()
                let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
                scheduler.run {
                    let queries = scheduler.hotPublisher("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
                    scheduler.expect(DispatchSearch.results(queries, scheduler: queue))
                        .toBe("------x------y|", values: ["x": "SWIFT", "y": "RX"])
                }
                #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
            }

            /// Issue 59: `RunLoop.main` hard-coded as the scheduler. OpenCombine's run-loop
            /// scheduler adds a `Timer` per delay; it fires on virtual time.
            @MainActor
            @Test("debounce on a hard-coded RunLoop.main runs on virtual time", .noPortabilityWarning)
            func debounceOnTheMainRunLoop() {
                let reporter = MarbleFailure.Collector()
                let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
                scheduler.run {
                    let queries = scheduler.hotPublisher("-a-b------c---|", values: ["a": "sw", "b": "swift", "c": "rx"])
                    let results = queries.debounce(for: .milliseconds(300), scheduler: RunLoop.main.ocombine).map { $0.uppercased() }
                    scheduler.expect(results).toBe("------x------y|", values: ["x": "SWIFT", "y": "RX"])
                }
                #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
            }

            /// Issue 59: `Timer.publish` on the main run loop, common modes: a clock that ticks.
            @MainActor
            @Test("Timer.publish ticks at virtual time", .noPortabilityWarning)
            func timerPublish() {
                let reporter = MarbleFailure.Collector()
                let scheduler = TestScheduler(frame: .milliseconds(100), reporter: reporter)
                scheduler.run {
                    let start = Date()
                    let ticks = Timer.publish(every: 0.2, on: .main, in: .common).autoconnect()
                        .map { "\(Int(($0.timeIntervalSince(start) * 10).rounded()))" }
                        .prefix(3)
                    // `prefix(3)` (`output(in:)`) finishes when a fourth value comes, in Combine as here.
                    scheduler.expect(ticks).toBe("--a-b-c-|", values: ["a": "2", "b": "4", "c": "6"])
                }
                #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
            }
        #endif

        @Test("RunLoop and OperationQueue time types: delay and a repeating timer on virtual time")
        func runLoopAndOperationQueue() {
            let scheduler = TestScheduler()
            scheduler.run {
                let input = scheduler.coldPublisher("a-b|")
                scheduler.expect(input.delay(for: .milliseconds(2), scheduler: scheduler.runLoop)).toBe("--a-b|")
                scheduler.expect(input.delay(for: .milliseconds(3), scheduler: scheduler.operationQueue)).toBe("---a-b|")
                var ticks = 0
                let cancellable = scheduler.dispatchQueue.schedule(after: scheduler.dispatchQueue.now, interval: .milliseconds(2)) {
                    ticks += 1
                }
                scheduler.schedule(after: .milliseconds(7)) { cancellable.cancel() }
                scheduler.schedule(after: .milliseconds(8)) { #expect(ticks == 4) }
            }
        }

        @Test("now is a fixed origin plus virtual time, not the wall clock")
        func now() {
            let scheduler = TestScheduler()
            let start = scheduler.dispatchQueue.now
            let runLoopStart = scheduler.runLoop.now
            scheduler.advance(by: .milliseconds(250))
            #expect(start.distance(to: scheduler.dispatchQueue.now) == .milliseconds(250))
            #expect(runLoopStart.distance(to: scheduler.runLoop.now) == .milliseconds(250))
            #expect(runLoopStart.date == Date(timeIntervalSinceReferenceDate: 0))
        }
    }
#endif
