import Atomics
import Dispatch
import Foundation
import MarbleCore
import Testing

/// Thread-hopping behaviour; `.ci/run` also runs this suite under ThreadSanitizer
/// (`make test-tsan` filters on "Concurrency").
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("merge of sources emitting on several threads delivers every value, serialized")
    func mergeAcrossThreads() throws {
        let sources = (0..<4).map { index in
            Observable.from(Array(0..<2_000).map { index * 10_000 + $0 })
                .subscribe(on: DispatchQueueScheduler(label: "source-\(index)"))
        }
        var inside = 0
        var maxInside = 0
        let values = try Observable.merge(sources)
            .do(onNext: { _ in
                inside += 1
                maxInside = max(maxInside, inside)
                inside -= 1
            })
            .blocking(timeout: .seconds(20)).toArray()
        #expect(values.count == 8_000)
        #expect(Set(values).count == 8_000)
        #expect(maxInside == 1)
    }

    @Test("a single-assignment disposable set and disposed from two threads disposes its member exactly once")
    func singleAssignmentRace() {
        let rounds = 2_000
        let disposals = ManagedAtomic<Int>(0)
        let holders = (0..<rounds).map { _ in SingleAssignmentDisposable() }
        DispatchQueue.concurrentPerform(iterations: 2) { side in
            for holder in holders {
                if side == 0 {
                    holder.set(Disposables.create { disposals.wrappingIncrement(by: 1, ordering: .relaxed) })
                } else {
                    holder.dispose()
                }
            }
        }
        #expect(disposals.load(ordering: .relaxed) == rounds)
        let allDisposed = holders.allSatisfy { $0.isDisposed }
        #expect(allDisposed)
    }

    @Test("an observer's upstream set while it completes and is disposed on other threads is disposed exactly once")
    func observerUpstreamRace() {
        let rounds = 2_000
        let disposals = ManagedAtomic<Int>(0)
        let terminals = ManagedAtomic<Int>(0)
        let observers = (0..<rounds).map { _ in
            Observer<Int> { event in
                if event.isTerminal { terminals.wrappingIncrement(by: 1, ordering: .relaxed) }
            }
        }
        DispatchQueue.concurrentPerform(iterations: 3) { side in
            for observer in observers {
                switch side {
                case 0: observer.setUpstream(Disposables.create { disposals.wrappingIncrement(by: 1, ordering: .relaxed) })
                case 1: observer.on(.completed)
                default: observer.dispose()
                }
            }
        }
        #expect(disposals.load(ordering: .relaxed) == rounds)
        #expect(terminals.load(ordering: .relaxed) <= rounds)
        let allOver = observers.allSatisfy { $0.isDisposed }
        #expect(allOver)
    }

    @Test("observe(on:) delivers in order on the scheduler's queue")
    func observeOn() throws {
        let scheduler = DispatchQueueScheduler(label: "observer")
        let key = DispatchSpecificKey<Int>()
        scheduler.queue.setSpecific(key: key, value: 7)
        var onQueue = true
        let values = try Observable.from(0..<5_000)
            .observe(on: scheduler)
            .do(onNext: { _ in if DispatchQueue.getSpecific(key: key) != 7 { onQueue = false } })
            .blocking(timeout: .seconds(20)).toArray()
        #expect(values == Array(0..<5_000))
        #expect(onQueue)
    }

    @Test("combineLatest and zip with sources on different threads are data-race free")
    func combineAcrossThreads() throws {
        let a = Observable.from(0..<1_000).subscribe(on: DispatchQueueScheduler(label: "a"))
        let b = Observable.from(0..<1_000).subscribe(on: DispatchQueueScheduler(label: "b"))
        let zipped = try Observable.zip(a, b) { $0 + $1 }.blocking(timeout: .seconds(20)).toArray()
        #expect(zipped == (0..<1_000).map { $0 * 2 })
        let combined = try Observable.combineLatest(a, b) { $0 + $1 }.blocking(timeout: .seconds(20)).toArray()
        #expect(combined.last == 1_998)
    }

    @Test("disposing from another thread while events flow is safe and idempotent")
    func disposeRace() {
        for _ in 0..<50 {
            let subject = PublishSubject<Int>()
            let received = LockedCounter()
            let subscription = subject.map { $0 + 1 }.filter { _ in true }.subscribe(onNext: { _ in received.increment() })
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                for i in 0..<500 { subject.onNext(i) }
            }
            DispatchQueue.global().async(group: group) {
                subscription.dispose()
                subscription.dispose()
            }
            group.wait()
            let before = received.value
            subject.onNext(1)
            #expect(received.value == before)
        }
    }

    // No assumption about how fast the machine is: the quiet period is far longer than any gap
    // the source can have within the timeout, and the timer path is tested with one value.
    @Test("timing operators on a dispatch scheduler: debounce and delay deliver")
    func realTimeOperators() throws {
        let scheduler = DispatchQueueScheduler(label: "timers")
        let flushedOnCompletion = try Observable.from([1, 2, 3])
            .delay(.milliseconds(5), scheduler: scheduler)
            .debounce(.seconds(60), scheduler: scheduler)
            .blocking(timeout: .seconds(10)).toArray()
        #expect(flushedOnCompletion == [3])
        let byTimer = try Observable.concat(Observable.just(7), Observable.never())
            .delay(.milliseconds(1), scheduler: scheduler)
            .debounce(.milliseconds(1), scheduler: scheduler)
            .blocking(timeout: .seconds(10)).first()
        #expect(byTimer == 7)
    }

    @Test("blocking helpers return values and give up after their timeout")
    func blocking() throws {
        let source = Observable.from([1, 2, 3]).subscribe(on: DispatchQueueScheduler(label: "blocking"))
        #expect(try source.blocking(timeout: .seconds(5)).first() == 1)
        #expect(try source.blocking(timeout: .seconds(5)).last() == 3)
        #expect(try source.blocking(timeout: .seconds(5)).toArray() == [1, 2, 3])
        try source.blocking(timeout: .seconds(5)).waitUntilCompleted()
        #expect(throws: RxError.blockingTimeout(.milliseconds(20))) {
            try Observable<Int>.never().blocking(timeout: .milliseconds(20)).first()
        }
        #expect(throws: TestError.self) {
            try Observable<Int>.error(TestError()).blocking(timeout: .seconds(1)).toArray()
        }
        #expect(try Observable<Int>.empty().blocking(timeout: .seconds(1)).first() == nil)
    }

    @Test("values bridges to an async sequence, and from(async:) back")
    func asyncBridges() async throws {
        var collected: [Int] = []
        for try await value in Observable.from([1, 2, 3]).values { collected.append(value) }
        #expect(collected == [1, 2, 3])

        let stream = AsyncStream<Int> { continuation in
            for i in 0..<3 { continuation.yield(i * 10) }
            continuation.finish()
        }
        var roundTrip: [Int] = []
        for try await value in Observable.from(async: stream).values { roundTrip.append(value) }
        #expect(roundTrip == [0, 10, 20])

        await #expect(throws: TestError.self) {
            for try await _ in Observable<Int>.error(TestError()).values {}
        }
    }
}

final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
