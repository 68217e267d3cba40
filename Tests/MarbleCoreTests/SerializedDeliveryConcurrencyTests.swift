import Dispatch
import MarbleCore
import Testing

/// How operators that serialize delivery (their gate) behave when events race: every event
/// delivered once, one at a time, each source's in its order, also when a subscriber sends more
/// while it is being called. `.ci/run` runs this suite under ThreadSanitizer too ("Concurrency").
@Suite("Concurrency: serialized delivery")
struct SerializedDeliveryConcurrencyTests {
    /// Counts the calls in progress and the most seen at once.
    final class Overlap: Sendable {
        private let state = Locked((inside: 0, most: 0))
        var most: Int { state.withLock { $0.most } }
        func enter() {
            state.withLock {
                $0.inside += 1
                $0.most = max($0.most, $0.inside)
            }
        }
        func leave() { state.withLock { $0.inside -= 1 } }
    }

    @Test("combineLatest of sources on three threads delivers each combination once, never two at once, each source in order")
    func combinedValuesFromRacingThreads() throws {
        let count = 2_000
        let sources = (0..<3).map { index in
            Observable.from(Array(0..<count)).subscribe(on: DispatchQueueScheduler(label: "source-\(index)"))
        }
        let overlap = Overlap()
        let combined = try Observable.combineLatest(sources[0], sources[1], sources[2]) { [$0, $1, $2] }
            .do(onNext: { _ in
                overlap.enter()
                overlap.leave()
            })
            .blocking(timeout: .seconds(30)).toArray()
        #expect(overlap.most == 1)
        #expect(combined.last == [count - 1, count - 1, count - 1])
        // Each combination is one source's value moving on by one: no event lost, none twice.
        for (before, after) in zip(combined, combined.dropFirst()) {
            let steps = zip(before, after).map { $1 - $0 }
            #expect(steps.filter { $0 == 1 }.count == 1 && steps.filter { $0 != 0 }.count == 1, "\(before) → \(after)")
        }
    }

    @Test("a subscriber that sends to the source while it is called gets that value after the current one returns")
    func reentrantSendIsQueuedBehindTheCurrentDelivery() {
        let subject = PublishSubject<Int>()
        let other = PublishSubject<String>()
        var seen: [String] = []
        var depth = 0
        let subscription = Observable.combineLatest(subject, other) { "\($0)\($1)" }.subscribe(onNext: { value in
            depth += 1
            seen.append("\(value)@\(depth)")
            // The re-entrant event is queued, not delivered inside this call.
            if value == "1x" { subject.onNext(2) }
            depth -= 1
        })
        other.onNext("x")
        subject.onNext(1)
        subject.onNext(3)
        #expect(seen == ["1x@1", "2x@1", "3x@1"])
        subscription.dispose()
    }

    @Test("events sent from many threads through a merged delay all arrive, one at a time")
    func sendsFromManyThreadsThroughATimedOperator() throws {
        let subject = PublishSubject<Int>()
        let scheduler = DispatchQueueScheduler(label: "delay")
        let overlap = Overlap()
        let received = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let subscription = subject.delay(.milliseconds(1), scheduler: scheduler)
            .subscribe(onNext: { value in
                overlap.enter()
                let count = received.withLock {
                    $0.append(value)
                    return $0.count
                }
                overlap.leave()
                if count == 4 * 500 { done.signal() }
            })
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for value in 0..<500 { subject.onNext(thread * 1_000 + value) }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        subscription.dispose()
        let values = received.withLock { $0 }
        #expect(overlap.most == 1)
        #expect(Set(values).count == 2_000)
        // Each thread's values arrive in the order it sent them.
        for thread in 0..<4 {
            let own = values.filter { $0 / 1_000 == thread }
            #expect(own == own.sorted())
        }
    }
}
