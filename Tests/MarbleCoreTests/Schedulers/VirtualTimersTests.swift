import MarbleCore
import Testing

/// Timing operators on a virtual-time scheduler keep their timers as numbered heap entries
/// (no disposable per timer); on any other scheduler, as disposables. Both must behave alike.
@Suite("Timing operators' timers on virtual time")
struct VirtualTimersTests {
    /// A scheduler on a virtual clock that does not say so: timers take the disposable path.
    final class Forwarding: Scheduler {
        let base: VirtualTimeScheduler
        init(_ base: VirtualTimeScheduler) { self.base = base }
        var now: Duration { base.now }
        func schedule(_ action: @escaping () -> Void) -> any Disposable { base.schedule(action) }
        func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
            base.schedule(after: delay, action)
        }
    }

    /// Sends `values` at their times through `operate` on `scheduler`, runs, and returns what
    /// came out, with times.
    func timeline(
        on makeScheduler: (VirtualTimeScheduler) -> any Scheduler, _ values: [(Duration, Int)],
        _ operate: (Observable<Int>, any Scheduler) -> Observable<Int>
    ) throws -> [String] {
        let clock = VirtualTimeScheduler()
        let scheduler = makeScheduler(clock)
        let subject = PublishSubject<Int>()
        var out: [String] = []
        let subscription = operate(subject.asObservable(), scheduler).subscribe { event in
            out.append("\(event)@\(clock.now)")
        }
        for (time, value) in values { clock.schedule(at: time) { subject.onNext(value) } }
        clock.schedule(at: .seconds(20)) { subject.onCompleted() }
        try clock.run()
        subscription.dispose()
        return out
    }

    @Test("a periodic schedule on virtual time ticks at exact instants, and disposing it, also from its own tick, leaves nothing waiting")
    func periodicTicksAndStops() throws {
        let clock = VirtualTimeScheduler()
        var ticks: [Duration] = []
        var timer: (any Disposable)?
        timer = clock.schedulePeriodic(every: .milliseconds(300), startingAfter: .milliseconds(100)) {
            ticks.append(clock.now)
            if ticks.count == 4 { timer?.dispose() }
        }
        try clock.run()
        #expect(ticks == [100, 400, 700, 1_000].map { Duration.milliseconds($0) })
        #expect(clock.pendingCount == 0)

        var later: [Duration] = []
        let stopped = clock.schedulePeriodic(every: .seconds(1), startingAfter: .zero) { later.append(clock.now) }
        clock.schedule(at: .milliseconds(3_500)) { stopped.dispose() }
        try clock.run()
        // From 1 s, where the first run left the clock, to the disposal at 3.5 s.
        #expect(later == [1, 2, 3].map { Duration.seconds($0) })
        #expect(clock.pendingCount == 0)
        stopped.dispose()
    }

    @Test("delay, debounce, throttle, audit, timeout and buffer give the same timeline with or without the virtual path")
    func bothPathsAgree() throws {
        let values: [(Duration, Int)] = [
            (.milliseconds(0), 1), (.milliseconds(300), 2), (.milliseconds(1_500), 3), (.milliseconds(1_600), 4),
            (.milliseconds(4_000), 5), (.milliseconds(4_000), 6), (.milliseconds(9_000), 7),
        ]
        let operators: [(String, (Observable<Int>, any Scheduler) -> Observable<Int>)] = [
            ("delay", { $0.delay(.seconds(1), scheduler: $1) }),
            ("debounce", { $0.debounce(.seconds(1), scheduler: $1) }),
            ("throttle", { $0.throttle(.seconds(1), scheduler: $1) }),
            ("audit", { $0.audit(.seconds(1), scheduler: $1) }),
            ("timeout", { $0.timeout(.seconds(3), scheduler: $1).catch { _ in Observable.just(-1) } }),
            ("buffer", { $0.buffer(timeSpan: .seconds(2), count: 10, scheduler: $1).map { $0.reduce(0, +) } }),
            // Periodic schedules: ticks re-enter the heap directly on virtual time.
            ("sample", { $0.sample(Observable<Int>.interval(.milliseconds(700), scheduler: $1)) }),
            (
                "timer with a period",
                { Observable.merge($0, Observable<Int>.timer(.milliseconds(250), period: .seconds(2), scheduler: $1).take(4)) }
            ),
            ("throttle, trailing only", { $0.throttle(.seconds(1), leading: false, trailing: true, scheduler: $1) }),
            ("timeout to a fallback", { $0.timeout(.seconds(3), other: Observable.just(-2), scheduler: $1) }),
        ]
        for (name, operate) in operators {
            let virtual = try timeline(on: { $0 }, values, operate)
            let forwarded = try timeline(on: { Forwarding($0) }, values, operate)
            #expect(virtual == forwarded, "\(name)")
            #expect(!virtual.isEmpty, "\(name)")
        }
    }

    @Test("disposing a subscription cancels its pending timer: nothing of it stays due or runs")
    func disposeCancels() throws {
        let clock = VirtualTimeScheduler()
        let subject = PublishSubject<Int>()
        var out: [Int] = []
        let subscription = subject.debounce(.seconds(1), scheduler: clock).subscribe(onNext: { out.append($0) })
        subject.onNext(1)
        #expect(clock.nextDueTime == .seconds(1))
        subscription.dispose()
        #expect(clock.nextDueTime == nil)
        try clock.run()
        #expect(out.isEmpty)
    }

    @Test("a replaced timer is cancelled in the heap, not run and ignored")
    func replacedTimerIsCancelled() throws {
        let clock = VirtualTimeScheduler()
        let subject = PublishSubject<Int>()
        var out: [String] = []
        let subscription = subject.debounce(.seconds(1), scheduler: clock).subscribe(onNext: { out.append("\($0)@\(clock.now)") })
        subject.onNext(1)
        try clock.advance(by: .milliseconds(500))
        subject.onNext(2)
        #expect(clock.cancelMarkCount == 1)
        #expect(clock.nextDueTime == .milliseconds(1_500))
        try clock.run()
        #expect(out == ["2@1.5 seconds"])
        subscription.dispose()
    }
}
