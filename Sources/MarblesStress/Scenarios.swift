import Atomics
import Dispatch
import MarbleCore

struct StressError: Error {}

/// One operator under stress: builds a stream whose sources run on several dispatch queues.
struct Scenario: Sendable {
    var name: String
    var outcome: Outcome
    var build: @Sendable (Queues) -> Observable<Int>
}

/// Four serial queues and a concurrent one, shared by every thread.
struct Queues: Sendable {
    let serial = (0..<4).map { DispatchQueueScheduler(label: "stress.\($0)") }
    let concurrent = DispatchQueueScheduler(queue: DispatchQueue(label: "stress.concurrent", attributes: .concurrent))
    subscript(_ i: Int) -> DispatchQueueScheduler { serial[i % serial.count] }

    /// `0..<count` emitted on queue `i`.
    func range(_ count: Int, on i: Int, from start: Int = 0) -> Observable<Int> {
        Observable.from(start..<(start + count)).subscribe(on: self[i])
    }
}

extension Scenario {
    static let all: [Scenario] = flattening + combining + errorsAndTime + sharing

    static let flattening: [Scenario] = [
        Scenario(name: "flatMap", outcome: Outcome(count: 200)) { q in
            Observable.from(0..<200).flatMap { v in Observable.just(v).subscribe(on: q[v]) }
        },
        Scenario(name: "flatMap(maxConcurrent: 2)", outcome: Outcome(count: 200)) { q in
            Observable.from(0..<200).flatMap(maxConcurrent: 2) { v in Observable.just(v).subscribe(on: q[v]) }
        },
        Scenario(name: "concatMap", outcome: Outcome(count: 200, increasing: true)) { q in
            Observable.from(0..<100).concatMap { v in Observable.from([2 * v, 2 * v + 1]).subscribe(on: q[v]) }
        },
        Scenario(name: "merge(maxConcurrent: 3)", outcome: Outcome(count: 400)) { q in
            Observable.merge((0..<8).map { q.range(50, on: $0) }, maxConcurrent: 3)
        },
        Scenario(name: "concat", outcome: Outcome(count: 200, increasing: true)) { q in
            Observable.concat((0..<4).map { q.range(50, on: $0, from: $0 * 50) })
        },
        Scenario(name: "flatMapLatest", outcome: Outcome()) { q in
            q.range(100, on: 0).flatMapLatest { v in Observable.just(v).subscribe(on: q[v + 1]) }
        },
        Scenario(name: "flatMapFirst", outcome: Outcome()) { q in
            q.range(100, on: 0).flatMapFirst { v in Observable.just(v).subscribe(on: q[v + 1]) }
        },
        Scenario(name: "switchLatest", outcome: Outcome()) { q in
            q.range(100, on: 0).map { v in q.range(3, on: v + 1, from: v * 3) }.switchLatest()
        },
    ]

    static let combining: [Scenario] = [
        Scenario(name: "combineLatest", outcome: Outcome()) { q in
            Observable.combineLatest(q.range(100, on: 0), q.range(100, on: 1)) { $0 + $1 }
        },
        Scenario(name: "zip", outcome: Outcome(count: 100, increasing: true)) { q in
            Observable.zip(q.range(100, on: 0), q.range(100, on: 1)) { $0 + $1 }
        },
        Scenario(name: "withLatestFrom", outcome: Outcome()) { q in
            q.range(100, on: 0).withLatestFrom(q.range(100, on: 1))
        },
        Scenario(name: "amb", outcome: Outcome(count: 50, increasing: true)) { q in
            Observable.amb((0..<3).map { q.range(50, on: $0) })
        },
        Scenario(name: "merge(with:)", outcome: Outcome(count: 150)) { q in
            q.range(50, on: 0).merge(with: q.range(50, on: 1), q.range(50, on: 2))
        },
    ]

    static let errorsAndTime: [Scenario] = [
        Scenario(name: "retry(20) of an error", outcome: Outcome(terminal: .error, count: 0)) { q in
            Observable<Int>.error(StressError()).subscribe(on: q[0]).retry(20)
        },
        Scenario(name: "retry(5) after values", outcome: Outcome(terminal: .error, count: 18)) { q in
            Observable.concat(Observable.from([1, 2, 3]), Observable<Int>.error(StressError())).subscribe(on: q[1]).retry(5)
                .scan(0) { n, _ in n + 1 }
        },
        Scenario(name: "observe(on:)", outcome: Outcome(count: 200, increasing: true)) { q in
            q.range(200, on: 0).observe(on: q[1])
        },
        Scenario(name: "subscribe(on:) concurrent queue", outcome: Outcome(count: 100, increasing: true)) { q in
            Observable.from(0..<100).subscribe(on: q.concurrent)
        },
        Scenario(name: "timeout fires", outcome: Outcome(terminal: .error, count: 0)) { q in
            Observable<Int>.never().timeout(.milliseconds(1), scheduler: q[2])
        },
        Scenario(name: "timeout passes", outcome: Outcome(count: 50, increasing: true)) { q in
            q.range(50, on: 0).timeout(.seconds(30), scheduler: q[3])
        },
        Scenario(name: "debounce", outcome: Outcome(increasing: true, last: 99)) { q in
            q.range(100, on: 0).debounce(.microseconds(50), scheduler: q[1])
        },
        Scenario(name: "audit", outcome: Outcome(increasing: true, last: 99)) { q in
            q.range(100, on: 0).audit(.microseconds(50), scheduler: q[1])
        },
        Scenario(name: "throttle", outcome: Outcome(increasing: true)) { q in
            q.range(100, on: 0).throttle(.microseconds(50), scheduler: q[1])
        },
        Scenario(name: "interval + take", outcome: Outcome(count: 5, increasing: true, last: 4)) { q in
            Observable<Int>.interval(.microseconds(100), scheduler: q[2]).take(5)
        },
        Scenario(name: "delaySubscription", outcome: Outcome(count: 20, increasing: true)) { q in
            q.range(20, on: 0).delaySubscription(.microseconds(20), scheduler: q[1])
        },
        Scenario(name: "delay", outcome: Outcome(count: 100, increasing: true)) { q in
            q.range(100, on: 0).delay(.microseconds(20), scheduler: q[1])
        },
    ]

    static let sharing: [Scenario] = [
        Scenario(name: "share()", outcome: Outcome()) { q in
            let shared = q.range(100, on: 0).share()
            return Observable.merge(shared, shared.observe(on: q[1]))
        },
        Scenario(name: "share(replay: 1)", outcome: Outcome()) { q in
            let shared = q.range(100, on: 0).share(replay: 1)
            return Observable.merge(shared, shared.subscribe(on: q[2]))
        },
        // Resets whose notifiers fire on another queue, racing subscribers that arrive and leave.
        Scenario(name: "share(reset notifiers)", outcome: Outcome()) { q in
            let shared = q.range(100, on: 0).share(
                resetOnError: .when { _ in Observable.just(1).observe(on: q[3]) },
                resetOnComplete: .when { Observable.just(1).observe(on: q[3]) },
                resetOnRefCountZero: .when { Observable.just(1).observe(on: q[1]) })
            return Observable.merge(shared, shared.subscribe(on: q[2]).take(50))
        },
        subject("PublishSubject") { PublishSubject<Int>() },
        subject("BehaviorSubject") { BehaviorSubject(value: -1) },
        subject("ReplaySubject") { ReplaySubject(bufferSize: 3) },
    ]

    /// One sender on a queue; subscribers join from other queues while it sends: whatever a
    /// subscriber gets (replay, then live) must be increasing and end with the completion.
    static func subject<S: SubjectType<Int> & Sendable>(_ name: String, _ make: @escaping @Sendable () -> S) -> Scenario {
        Scenario(name: name, outcome: Outcome(increasing: true)) { q in
            Observable.create { observer in
                let subject = make()
                let joined = CompositeDisposable()
                q[3].schedule {
                    for value in 0..<200 { subject.onNext(value) }
                    subject.onCompleted()
                }
                _ = joined.insert(subject.subscribe(on: q[1]).subscribe(observer))
                for i in 0..<3 {
                    // Extra subscribers racing the sender, each checked by its own grammar.
                    _ = joined.insert(subject.subscribe(on: q[i]).subscribe { _ in })
                }
                return joined
            }
        }
    }
}
