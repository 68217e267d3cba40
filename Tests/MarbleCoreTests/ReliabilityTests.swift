import Foundation
import MarbleCore
import MarblesTesting
import Testing

/// Regressions of the races and traps found by the stress program and TSan; each loop is
/// bounded and waits with a timeout, never a sleep.
@Suite("Reliability regressions")
struct ReliabilityTests {
    struct E: Error {}

    @Test("flatMap(maxConcurrent:) over inners on other threads never loses a queued inner", arguments: [1, 2])
    func flatMapMaxConcurrentAcrossThreads(maxConcurrent: Int) throws {
        let schedulers = (0..<4).map { DispatchQueueScheduler(queue: DispatchQueue(label: "inner-\($0)")) }
        for run in 0..<40 {
            let values = try Observable.from(0..<200)
                .flatMap(maxConcurrent: maxConcurrent) { Observable.just($0).subscribe(on: schedulers[$0 % 4]) }
                .toArray()
                .blocking(timeout: .seconds(20)).first()
            #expect(values?.count == 200, "run \(run)")
        }
    }

    @Test("share(): a subscriber arriving after the source ended, before the others left, still ends (stress: 7 stalls in 79k runs)")
    func shareLateSubscriberReconnects() {
        for replay in [0, 1] {
            let source = PublishSubject<Int>()
            let shared = source.share(replay: replay)
            var late: [Event<Int>] = []
            let bag = DisposeBag()
            shared.subscribe { event in
                if event.isTerminal { shared.subscribe { late.append($0) }.disposed(by: bag) }
            }.disposed(by: bag)
            source.onNext(1)
            source.onCompleted()
            #expect(late == [.completed], "replay \(replay)")
        }
    }

    /// Runs the first scheduled action inline, before `schedule` returns (a dispatch timer
    /// firing while the scheduling thread is preempted), and queues the rest.
    final class FiresBeforeReturning: Scheduler {
        var now: Duration = .zero
        var inlineLeft = 1
        var queued: [() -> Void] = []
        func schedule(_ action: @escaping () -> Void) -> any Disposable { schedule(after: .zero, action) }
        func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
            let token = BooleanDisposable()
            if inlineLeft > 0 {
                inlineLeft -= 1
                action()
            } else {
                queued.append { if !token.isDisposed { action() } }
            }
            return token
        }
    }

    @Test("a periodic timer keeps ticking when a tick fires before its scheduling call returns (interval stalled under load)")
    func periodicSurvivesEarlyTick() {
        let scheduler = FiresBeforeReturning()
        var ticks = 0
        let timer = scheduler.schedulePeriodic(every: .milliseconds(2), startingAfter: .milliseconds(2)) { ticks += 1 }
        for _ in 0..<3 where !scheduler.queued.isEmpty { scheduler.queued.removeFirst()() }
        #expect(ticks == 4)
        timer.dispose()
    }

    @Test("interval and delaySubscription survive a first timer that fires before its scheduling call returns")
    func timersSurviveEarlyFirstTick() {
        let scheduler = FiresBeforeReturning()
        var ticks: [Int] = []
        let interval = Observable<Int>.interval(.milliseconds(2), scheduler: scheduler).subscribe(onNext: { ticks.append($0) })
        for _ in 0..<2 where !scheduler.queued.isEmpty { scheduler.queued.removeFirst()() }
        #expect(ticks == [0, 1, 2])
        interval.dispose()

        let late = FiresBeforeReturning()
        let subject = PublishSubject<Int>()
        var received: [Int] = []
        let subscription = subject.delaySubscription(.milliseconds(2), scheduler: late).subscribe(onNext: { received.append($0) })
        subject.onNext(7)
        #expect(received == [7])
        subscription.dispose()
    }

    /// A scheduler whose due timers fire newest first, as dispatch timers with leeway may.
    final class OutOfOrderTimers: Scheduler {
        var now: Duration = .zero
        var timers: [() -> Void] = []
        func schedule(_ action: @escaping () -> Void) -> any Disposable { schedule(after: .zero, action) }
        func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
            timers.append(action)
            return Disposables.create()
        }
        func fireAll(at time: Duration) {
            now = time
            while !timers.isEmpty { timers.removeLast()() }
        }
    }

    @Test("delay keeps arrival order when the scheduler's timers fire out of order (stress: 21 of 537 runs reordered)")
    func delayKeepsOrder() {
        let timers = OutOfOrderTimers()
        let subject = PublishSubject<Int>()
        var received: [Event<Int>] = []
        let subscription = subject.delay(.milliseconds(5), scheduler: timers).subscribe { received.append($0) }
        for value in 1...3 { subject.onNext(value) }
        subject.onCompleted()
        timers.fireAll(at: .milliseconds(10))
        #expect(received == [.next(1), .next(2), .next(3), .completed])
        subscription.dispose()
    }

    @Test("retry(n) of a source failing on another thread resubscribes every time")
    func retryAcrossThreads() throws {
        let queue = DispatchQueueScheduler(queue: DispatchQueue(label: "retry"))
        for _ in 0..<300 {
            var attempts = 0
            let lock = NSLock()
            let source = Observable<Int>.deferred {
                lock.withLock { attempts += 1 }
                return Observable<Int>.error(E()).subscribe(on: queue)
            }
            #expect(throws: E.self) { try source.retry(20).blocking(timeout: .seconds(20)).toArray() }
            #expect(lock.withLock { attempts } == 21)
        }
    }

    @Test("retry(Int.max) of a source that fails at once ends in a located failure within the step limit")
    func runawayRetry() {
        let reporter = MarbleFailure.Collector()
        let s = TestScheduler(stepLimit: 10_000, reporter: reporter)
        s.run {
            s.expect(Observable<Int>.error(E()).retry(Int.max)).toBe("-")
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains("retry looped synchronously") == true)
    }

    @Test("a replaying subject delivers the replay before live values sent meanwhile, one at a time", arguments: [0, 1])
    func replayOrder(kind: Int) throws {
        for _ in 0..<300 {
            let behavior = BehaviorSubject(value: 0)
            let replay = ReplaySubject<Int>(bufferSize: 1)
            replay.onNext(0)
            let subject: Observable<Int> = kind == 0 ? behavior.asObservable() : replay.asObservable()
            let useBehavior = kind == 0
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                for i in 1...50 {
                    if useBehavior { behavior.onNext(i) } else { replay.onNext(i) }
                }
                done.signal()
            }
            let seen = Locked<[Int]>([])
            let inside = Locked(0)
            let overlapped = Locked(false)
            let subscription = subject.subscribe(onNext: { value in
                if inside.withLock({
                    $0 += 1
                    return $0
                }) > 1 {
                    overlapped.withLock { $0 = true }
                }
                seen.withLock { $0.append(value) }
                inside.withLock { $0 -= 1 }
            })
            done.wait()
            subscription.dispose()
            let values = seen.withLock { $0 }
            #expect(!overlapped.withLock { $0 })
            #expect(values == values.sorted(), "\(values)")
        }
    }

    @Test("huge durations clamp instead of trapping")
    func hugeDurations() throws {
        let never = Observable<Int>.never()
        let scheduler = DispatchQueueScheduler(queue: DispatchQueue(label: "huge"))
        scheduler.schedule(after: .seconds(Int64.max / 2)) {}.dispose()
        #expect(throws: RxError.self) {
            try never.timeout(.milliseconds(1), scheduler: scheduler).blocking(timeout: .seconds(Int64.max / 2)).first()
        }
    }
}
