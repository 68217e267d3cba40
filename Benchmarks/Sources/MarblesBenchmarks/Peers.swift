import BenchmarkSupport
import CombineSchedulers
import Foundation
import MarbleCore
import MarbleRender
import Marbles
import MarblesCombine
import MarblesTesting

// MARK: Rendering one diagram

func renderBenchmarks() {
    let spec = try! DiagramSpec.parse(
        """
        input: -x--y--z------------|
        inner x: -1---2|
        inner y: --3---4|
        inner z: -5|
        operator: flatMap(maxConcurrent: 2)
        """)
    let model = try! DiagramRunner.run(spec)
    let measurer = CairoTextMeasurer()
    let list = DiagramLayout(style: spec.style, measurer: measurer).layout(model)
    let renderer = CairoRenderer()
    let toy = CairoRenderer(textEngine: .toy)
    let toyList = DiagramLayout(style: spec.style, measurer: CairoTextMeasurer(textEngine: .toy)).layout(model)
    _ = try! renderer.render(list, format: .png, theme: .light)  // fontconfig warm-up
    _ = try! toy.render(toyList, format: .png, theme: .light)
    let count = options.quick ? 20 : 100
    func each(_ body: @escaping () -> Int) -> () -> Void {
        { for _ in 0..<count { precondition(body() > 0) } }
    }
    let typical = try! DiagramSpec.parse("input: --a--b--c--|\noperator: map(x * 10)\nvalues: a = 1, b = 2, c = 3")
    let typicalList = DiagramLayout(style: typical.style, measurer: measurer).layout(try! DiagramRunner.run(typical))
    compare(
        "render a typical diagram (one input, map)", unit: .milliseconds(per: count, "ms/diagram"),
        [
            Contender(
                "run operator + layout",
                each { DiagramLayout(style: typical.style, measurer: measurer).layout(try! DiagramRunner.run(typical)).items.count }),
            Contender("SVG", each { try! renderer.render(typicalList, format: .svg, theme: .light).count }),
            Contender("PNG 2×", each { try! renderer.render(typicalList, format: .png, theme: .light, scale: 2).count }),
        ])
    compare(
        "render the gallery's flatMap diagram", unit: .milliseconds(per: count, "ms/diagram"),
        [
            Contender(
                "run operator + layout",
                each { DiagramLayout(style: spec.style, measurer: measurer).layout(try! DiagramRunner.run(spec)).items.count }),
            Contender("SVG", each { try! renderer.render(list, format: .svg, theme: .light).count }),
            Contender("SVG, auto theme", each { try! renderer.render(list, format: .svg, theme: .light, autoTheme: true).count }),
            Contender("PDF", each { try! renderer.render(list, format: .pdf, theme: .light).count }),
            Contender("PNG 2×", each { try! renderer.render(list, format: .png, theme: .light, scale: 2).count }),
            Contender("SVG, Cairo toy text (no fallback)", each { try! toy.render(toyList, format: .svg, theme: .light).count }),
            Contender(
                "PNG 2×, Cairo toy text (no fallback)", each { try! toy.render(toyList, format: .png, theme: .light, scale: 2).count }),
        ])
}

// MARK: Combine schedulers: ours against combine-schedulers' TestScheduler

func combineBenchmarks() {
    typealias Instant = CombineTestScheduler.VirtualInstant
    for n in options.quick ? [1_000] : [1_000, 10_000, 100_000] {
        var random = SplitMix(state: 42)
        let due = (0..<n).map { _ in Duration.microseconds(Int(random.next() % 1_000_000)) }
        var contenders = [
            Contender("Marbles scheduler.combine") {
                let scheduler = Marbles.TestScheduler(reporter: MarbleFailure.Collector())
                let combine = scheduler.combine
                var ran = 0
                for t in due { combine.schedule(after: Instant(t)) { ran += 1 } }
                scheduler.flush()
                precondition(ran == n)
            }
        ]
        // It re-sorts its queue on every step (quadratic): three runs at 10⁴, none at 10⁵ (half an hour).
        if n <= 10_000 {
            contenders.append(
                Contender("combine-schedulers TestScheduler", reps: n <= 1_000 ? nil : 3) {
                    let scheduler = CombineSchedulers.TestScheduler<Instant, Never>(now: Instant(.zero))
                    var ran = 0
                    for t in due { scheduler.schedule(after: Instant(t)) { ran += 1 } }
                    scheduler.run()
                    precondition(ran == n)
                })
        }
        compare(
            "Combine scheduler: schedule \(n) actions at random virtual times, run them all", unit: .nanoseconds(per: n, "ns/action"),
            contenders)
    }
}

// MARK: The async driver: cost per virtual-time step, fixed cost of one async test

// Top-level code runs on MainActor, and closures formed there would hop to the main queue,
// outside the test scheduler: the async benchmarks run in a nonisolated function.
nonisolated func asyncDriverBenchmarks() {
    let steps = 1_000
    func sleeps(on clock: TestClock, _ emit: (Int) -> Void) async throws {
        for i in 0..<steps {
            try await clock.sleep(for: .milliseconds(1))
            emit(i)
        }
    }
    compare(
        "async driver: \(steps) sleeps of 1 frame each", unit: .nanoseconds(per: steps, "ns/step"),
        [
            Contender("synchronous driver, interval") {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                let recording = scheduler.run {
                    scheduler.record(Observable<Int>.interval(.milliseconds(1), scheduler: scheduler).take(steps))
                }
                precondition(recording.events.count == steps + 1)
            },
            Contender("async, structured task (expect(emitting:))") {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                let clock = scheduler.clock
                let expectation = scheduler.run {
                    scheduler.expect(emitting: Int.self) { emit in try await sleeps(on: clock) { emit($0) } }
                }
                precondition(expectation.recorded.count == steps + 1, "\(expectation.recorded.count)")
            },
            Contender("async, Task { } through the enqueue hook") {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                let subject = PublishSubject<Int>()
                let clock = scheduler.clock
                let recording = scheduler.run {
                    let recording = scheduler.record(subject)
                    Task { try await sleeps(on: clock) { subject.onNext($0) } }
                    return recording
                }
                precondition(recording.events.count == steps, "\(recording.events.count)")
            },
        ])
    compare(
        "Task.sleep on virtual time: \(steps) sleeps of 100 ms", unit: .nanoseconds(per: steps, "ns/sleep"),
        [
            Contender("scheduler.clock.sleep(for:)") { sleepTest(steps) { try await $0.sleep(for: .milliseconds(100)) } },
            Contender("Task.sleep(for:) (ContinuousClock)") { sleepTest(steps) { _ in try await Task.sleep(for: .milliseconds(100)) } },
            Contender("Task.sleep(nanoseconds:)") { sleepTest(steps) { _ in try await Task.sleep(nanoseconds: 100_000_000) } },
        ])
    compare(
        "a test that sleeps 10 s with Task.sleep", unit: .microseconds(per: 1),
        [
            Contender("Task.sleep(for: .seconds(10))") {
                let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                let expectation = scheduler.run {
                    scheduler.expect(emitting: Int.self) { emit in
                        try await Task.sleep(for: .seconds(10))
                        emit(1)
                    }
                }
                precondition(expectation.recorded.count == 2 && scheduler.now == .seconds(10))
            }
        ])
    let tests = options.quick ? 200 : 1_000
    // Issue 68: the trait's body is driven on a thread of its own (one a body), so that the
    // test's cooperative thread is free; this is what that costs a test, against the same body
    // driven in `run` on the calling thread.
    compare(
        "a test body that sleeps 300 ms", unit: .microseconds(per: tests),
        [
            Contender("in scheduler.run { expect(emitting:) } (the calling thread drives)") {
                for _ in 0..<tests {
                    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                    let expectation = scheduler.run {
                        scheduler.expect(emitting: Int.self) { emit in
                            try await Task.sleep(for: .milliseconds(300))
                            emit(1)
                        }
                    }
                    precondition(expectation.recorded.count == 2)
                }
            },
            Contender("withVirtualTime (what .virtualTime runs: a thread of its own drives)") {
                let done = DispatchSemaphore(value: 0)
                Task {
                    for _ in 0..<tests {
                        let slept = try await withVirtualTime { _ in
                            try await Task.sleep(for: .milliseconds(300))
                            return 1
                        }
                        precondition(slept == 1)
                    }
                    done.signal()
                }
                done.wait()
            },
        ])
    compare(
        "one short marble test", unit: .microseconds(per: tests),
        [
            Contender("observable marble test") {
                for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").map { $0 }).toBe("-a|") } }
            },
            Contender("async marble test (values → map)") {
                for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").values.map { $0 }).toBe("-a|") } }
            },
        ])
    // Where the async test's time goes, piece by piece (issue 40: 1.5× was the goal). Each row
    // adds one thing to the one above; the last two are the Swift runtime with nothing of ours.
    compare(
        "the async marble test, piece by piece", unit: .microseconds(per: tests),
        [
            Contender("observable marble test") {
                for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").map { $0 }).toBe("-a|") } }
            },
            Contender("a task that never suspends (expect(emitting:))") {
                for _ in 0..<tests {
                    passing { s in
                        _ = s.cold("-a|")
                        s.expect(emitting: String.self) { _ in }.toBe("|")
                    }
                }
            },
            Contender("values, no map") {
                for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").values).toBe("-a|") } }
            },
            Contender("values → a map compiled with the test (specialized)") {
                for _ in 0..<tests { passing { s in s.expect(SpecializedMap(s.cold("-a|").values) { $0 }).toBe("-a|") } }
            },
            Contender("values → the standard library's map (unspecialized)") {
                for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").values.map { $0 }).toBe("-a|") } }
            },
            Contender("Swift runtime alone: a task, two suspensions") {
                for _ in 0..<tests { bareTask(cancellationHandlers: false) }
            },
            Contender("Swift runtime alone, with a cancellation handler each") {
                for _ in 0..<tests { bareTask(cancellationHandlers: true) }
            },
        ])
}

/// A serial task executor with nothing else: a list of jobs, run in order.
final class BareExecutor: TaskExecutor, @unchecked Sendable {
    var jobs: [UnownedJob] = []
    func enqueue(_ job: consuming ExecutorJob) { jobs.append(UnownedJob(job)) }
    func drain() {
        var index = 0
        while index < jobs.count {
            jobs[index].runSynchronously(on: asUnownedTaskExecutor())
            index += 1
        }
        jobs.removeAll(keepingCapacity: true)
    }
}
let bareExecutor = BareExecutor()
nonisolated(unsafe) var bareWaiter: UnsafeContinuation<Int?, Never>?
nonisolated(unsafe) var bareSum = 0

/// The Swift runtime's share of the async test, with nothing of Marbles: a task on a bare
/// executor that suspends twice on continuations the driver resumes, as the async test's task
/// does (it starts, gets a value, gets the end).
nonisolated func bareTask(cancellationHandlers: Bool) {
    Task(executorPreference: bareExecutor) {
        if cancellationHandlers {
            while let value = await withTaskCancellationHandler(
                operation: { await withUnsafeContinuation { bareWaiter = $0 } }, onCancel: { bareSum += 1 })
            {
                bareSum &+= value
            }
        } else {
            while let value = await withUnsafeContinuation({ bareWaiter = $0 }) { bareSum &+= value }
        }
    }
    bareExecutor.drain()
    bareWaiter!.resume(returning: 1)
    bareExecutor.drain()
    bareWaiter!.resume(returning: nil)
    bareExecutor.drain()
}

/// A test of `steps` sleeps of 100 ms, written against scheduler.clock or with Task.sleep
/// (system clock, no injection).
nonisolated func sleepTest(_ steps: Int, _ sleep: @escaping @Sendable (TestClock) async throws -> Void) {
    let scheduler = TestScheduler(frame: .milliseconds(100), reporter: MarbleFailure.Collector())
    let clock = scheduler.clock
    let expectation = scheduler.run {
        scheduler.expect(emitting: Int.self) { emit in
            for i in 0..<steps {
                try await sleep(clock)
                emit(i)
            }
        }
    }
    precondition(
        expectation.recorded.count == steps + 1 && scheduler.now == .milliseconds(100 * steps), "\(expectation.recorded.count)")
}

/// The short async marble test alone, for profiling (`--only async-test`).
nonisolated func asyncTestProfile() {
    let tests = Int(ProcessInfo.processInfo.environment["PROFILE_TESTS"] ?? "") ?? 200_000
    switch ProcessInfo.processInfo.environment["ASYNC_VARIANT"] {
    case "observable": for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").map { $0 }).toBe("-a|") } }
    case "emitting":
        for _ in 0..<tests {
            passing { s in
                _ = s.cold("-a|")
                s.expect(emitting: String.self) { _ in }.toBe("|")
            }
        }
    case "nomap": for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").values).toBe("-a|") } }
    default: for _ in 0..<tests { passing { s in s.expect(s.cold("-a|").values.map { $0 }).toBe("-a|") } }
    }
}

/// Task.sleep alone, for profiling (`--only task-sleep`).
nonisolated func taskSleepProfile() {
    for _ in 0..<2_000 { sleepTest(1_000) { _ in try await Task.sleep(for: .milliseconds(100)) } }
}

// MARK: Reading the clock: what the interposed clock_gettime costs outside a run and inside one

#if os(Linux)
    import Glibc

    /// libc's own `clock_gettime`, past the interposer Marbles links into this executable.
    private let libcClockGettime: @convention(c) (clockid_t, UnsafeMutablePointer<timespec>?) -> Int32 = {
        let next = UnsafeMutableRawPointer(bitPattern: -1)  // RTLD_NEXT
        guard let symbol = dlsym(next, "clock_gettime") else { fatalError("no clock_gettime after the executable's") }
        return unsafeBitCast(symbol, to: (@convention(c) (clockid_t, UnsafeMutablePointer<timespec>?) -> Int32).self)
    }()
#endif

nonisolated func clockReadBenchmarks() {
    #if os(Linux)
        let reads = 100_000
        var spec = timespec()
        compare(
            "a clock read, \(reads) times", unit: .nanoseconds(per: reads, "ns/read"),
            [
                Contender("libc clock_gettime (past the interposer)") {
                    for _ in 0..<reads { _ = libcClockGettime(CLOCK_BOOTTIME, &spec) }
                    blackHole(spec)
                },
                Contender("clock_gettime via the interposer, outside a run") {
                    for _ in 0..<reads { _ = clock_gettime(CLOCK_BOOTTIME, &spec) }
                    blackHole(spec)
                },
                Contender("clock_gettime via the interposer, in a run (the executable's own: virtual)") {
                    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                    scheduler.run {
                        for _ in 0..<reads { _ = clock_gettime(CLOCK_BOOTTIME, &spec) }
                    }
                    blackHole(spec)
                },
                Contender("ContinuousClock.now outside a run") {
                    var last = ContinuousClock.now
                    for _ in 0..<reads { last = ContinuousClock.now }
                    blackHole(last)
                },
                Contender("ContinuousClock.now in a run (virtual)") {
                    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                    let (first, last) = scheduler.run { () -> (ContinuousClock.Instant, ContinuousClock.Instant) in
                        let first = ContinuousClock.now
                        var last = first
                        for _ in 0..<reads { last = ContinuousClock.now }
                        return (first, last)
                    }
                    precondition(first == last, "virtual time stands still while nothing is scheduled")
                },
                Contender("Date() in a run (virtual)") {
                    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                    let same = scheduler.run { () -> Bool in
                        let first = Date()
                        var last = first
                        for _ in 0..<reads { last = Date() }
                        return first == last
                    }
                    precondition(same)
                },
            ])
    #endif
}

/// `map`, as the standard library writes it, but compiled with the benchmark: specialized where
/// it is used (the standard library's own runs generic code, its conformances opaque to callers).
struct SpecializedMap<Base: AsyncSequence, Element>: AsyncSequence {
    let base: Base
    let transform: (Base.Element) async -> Element
    init(_ base: Base, _ transform: @escaping (Base.Element) async -> Element) {
        self.base = base
        self.transform = transform
    }
    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let transform: (Base.Element) async -> Element
        mutating func next() async throws -> Element? {
            guard let element = try await base.next() else { return nil }
            return await transform(element)
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), transform: transform) }
}
