import MarbleCore
import TestSupport
import Testing

@Suite("VirtualTimeScheduler")
struct VirtualTimeSchedulerTests {
    @Test("runs actions in due-time order, FIFO among equal times, with now set to the due time")
    func ordering() throws {
        let scheduler = VirtualTimeScheduler()
        var log: [String] = []
        scheduler.schedule(after: .seconds(2)) { log.append("b@\(scheduler.now)") }
        scheduler.schedule(after: .seconds(1)) { log.append("a@\(scheduler.now)") }
        scheduler.schedule(after: .seconds(2)) { log.append("c@\(scheduler.now)") }
        scheduler.schedule(after: .seconds(1)) {
            scheduler.schedule { log.append("d@\(scheduler.now)") }
        }
        try scheduler.run()
        #expect(log == ["a@1.0 seconds", "d@1.0 seconds", "b@2.0 seconds", "c@2.0 seconds"])
    }

    @Test("random schedules run sorted by (time, sequence)", arguments: [1, 2, 3])
    func randomOrdering(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let scheduler = VirtualTimeScheduler()
        var ran: [(Int, Int)] = []
        for i in 0..<2_000 {
            let due = Int(rng.next() % 50)
            scheduler.schedule(after: .milliseconds(due)) { ran.append((due, i)) }
        }
        try scheduler.run()
        #expect(ran.count == 2_000)
        #expect(zip(ran, ran.dropFirst()).allSatisfy { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) })
    }

    @Test("disposing an action that already ran leaves no cancellation mark; a pending one is marked and skipped")
    func disposingAfterRunLeavesNoMark() throws {
        let scheduler = VirtualTimeScheduler()
        var log: [Int] = []
        let early = scheduler.schedule(after: .seconds(1)) { log.append(1) }
        let late = scheduler.schedule(after: .seconds(5)) { log.append(5) }
        // Scheduled for a time already past once the clock moves: still pending, so still marked.
        try scheduler.advance(to: .seconds(2))
        let past = scheduler.schedule(at: .seconds(1)) { log.append(0) }
        early.dispose()
        #expect(scheduler.cancelMarkCount == 0)
        past.dispose()
        late.dispose()
        #expect(scheduler.cancelMarkCount == 2)
        try scheduler.run()
        #expect(log == [1])
    }

    @Test("cancelled actions are skipped; cancelling twice or after running is harmless")
    func cancellation() throws {
        let scheduler = VirtualTimeScheduler()
        var log: [Int] = []
        let a = scheduler.schedule(after: .seconds(1)) { log.append(1) }
        let b = scheduler.schedule(after: .seconds(2)) { log.append(2) }
        a.dispose()
        a.dispose()
        try scheduler.run()
        b.dispose()
        #expect(log == [2])
        #expect(scheduler.pendingCount == 0)
    }

    @Test("many cancellations keep the pending set bounded")
    func cancellationCompaction() throws {
        let scheduler = VirtualTimeScheduler()
        for _ in 0..<10_000 {
            scheduler.schedule(after: .seconds(1)) {}.dispose()
        }
        #expect(scheduler.pendingCount < 10_000)
        #expect(scheduler.nextDueTime == nil)
    }

    @Test("advance(by:) and advance(to:) run what is due and move the clock, never backwards")
    func advance() throws {
        let scheduler = VirtualTimeScheduler()
        var log: [Duration] = []
        scheduler.schedule(after: .seconds(1)) { log.append(scheduler.now) }
        scheduler.schedule(after: .seconds(3)) { log.append(scheduler.now) }
        try scheduler.advance(by: .seconds(2))
        #expect(log == [.seconds(1)])
        #expect(scheduler.now == .seconds(2))
        try scheduler.advance(to: .seconds(1))
        #expect(scheduler.now == .seconds(2))
        try scheduler.advance(to: .seconds(3))
        #expect(log == [.seconds(1), .seconds(3)])
    }

    @Test("periodic scheduling ticks without drift until disposed")
    func periodic() throws {
        let scheduler = VirtualTimeScheduler()
        var ticks: [Duration] = []
        let periodic = scheduler.schedulePeriodic(every: .seconds(2), startingAfter: .seconds(1)) { ticks.append(scheduler.now) }
        try scheduler.advance(to: .seconds(6))
        periodic.dispose()
        try scheduler.advance(to: .seconds(20))
        #expect(ticks == [.seconds(1), .seconds(3), .seconds(5)])
    }

    @Test("run() reports runaway work at the step limit")
    func stepLimit() {
        let scheduler = VirtualTimeScheduler(stepLimit: 100)
        func again() { scheduler.schedule(after: .milliseconds(1), again) }
        again()
        #expect(throws: RxError.self) { try scheduler.run() }
    }

    @Test("a step limit set after the scheduler is made is the one run() stops at, at that step and time")
    func stepLimitSetLater() {
        let scheduler = VirtualTimeScheduler()
        scheduler.stepLimit = 7
        func again() { scheduler.schedule(after: .milliseconds(1), again) }
        again()
        #expect(scheduler.stepLimit == 7)
        #expect(throws: RxError.stepLimitExceeded(steps: 7, now: .milliseconds(7))) { try scheduler.run() }
    }

    @Test("interval and timer on the virtual clock")
    func intervalValues() throws {
        let scheduler = VirtualTimeScheduler()
        var values: [(Int, Duration)] = []
        let subscription = Observable<Int>.interval(.seconds(1), scheduler: scheduler)
            .subscribe(onNext: { values.append(($0, scheduler.now)) })
        try scheduler.advance(by: .milliseconds(3500))
        subscription.dispose()
        try scheduler.run()
        #expect(values.map(\.0) == [0, 1, 2])
        #expect(values.map(\.1) == [.seconds(1), .seconds(2), .seconds(3)])
    }

    @Test("cancelAll survives an action whose release cancels another action (a Combine timer's deinit)")
    func cancelAllReentrantRelease() {
        final class CancelsOnDeinit {
            let other: any Disposable
            init(_ other: any Disposable) { self.other = other }
            deinit { other.dispose() }
        }
        let scheduler = VirtualTimeScheduler()
        let other = scheduler.schedule(after: .seconds(2)) {}
        var holder: CancelsOnDeinit? = CancelsOnDeinit(other)
        scheduler.schedule(after: .seconds(1)) { [holder] in _ = holder }
        holder = nil
        scheduler.cancelAll()
        #expect(scheduler.nextDueTime == nil)
    }
}

@Suite("Duration to nanoseconds")
struct DurationNanosecondsTests {
    /// The general formula, through `components`, as the fast path must agree with it.
    static func reference(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }

    @Test("whole and fractional nanoseconds, negative, around 9 s and huge durations convert as the general formula does")
    func matchesGeneralFormula() {
        var random = SeededRandom(seed: 7)
        var durations: [Duration] = [
            .zero, .nanoseconds(1), .nanoseconds(-1), .seconds(9), .seconds(-9), .seconds(10), .milliseconds(9_223),
            .milliseconds(9_224), .seconds(Int64.max), .seconds(Int64.min), .seconds(1) / 3, .seconds(-1) / 3,
            Duration(secondsComponent: 0, attosecondsComponent: 1_500_000_000),
            Duration(secondsComponent: 0, attosecondsComponent: -1_500_000_000),
        ]
        for _ in 0..<2_000 {
            let seconds = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
            let atto = Int64(random.next() % 1_000_000_000_000_000_000) * (seconds < 0 ? -1 : 1)
            durations.append(Duration(secondsComponent: seconds, attosecondsComponent: atto))
        }
        for duration in durations {
            #expect(duration.clampedNanoseconds == Self.reference(duration), "\(duration)")
        }
    }
}
