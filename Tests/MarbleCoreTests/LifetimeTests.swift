import MarbleCore
import MarblesTesting
import Testing

/// Every subscription a test makes is released: no retain cycles, nothing left behind.
@Suite("Lifetime")
struct LifetimeTests {
    @Test("operator chains release every subscription after completion, error and unsubscription", arguments: ["|", "#", "!"])
    func chainsRelease(ending: String) {
        let tracker = LifetimeTracker()
        do {
            let s = TestScheduler()
            s.run {
                let diagram = ending == "!" ? "-a-b-c-d-" : "-a-b-c-d-\(ending)"
                let source = tracker.track(s.cold(diagram))
                let other = tracker.track(s.hot("--x--y--z--|"))
                let chains: [Observable<String>] = [
                    source.map { $0 + "!" }.filter { _ in true },
                    source.flatMap { v in tracker.track(s.cold("-\(v)|")) },
                    source.flatMapLatest { v in tracker.track(s.cold("--\(v)|")) },
                    source.flatMapFirst { v in tracker.track(s.cold("--\(v)|")) },
                    Observable.combineLatest(source, other) { $0 + $1 },
                    Observable.zip(source, other) { $0 + $1 },
                    source.withLatestFrom(other),
                    source.debounce(.milliseconds(2), scheduler: s),
                    source.throttle(.milliseconds(2), scheduler: s),
                    source.delay(.milliseconds(2), scheduler: s),
                    source.take(until: other.skip(2)),
                    source.share(replay: 1),
                    source.retry(1),
                    source.catch { _ in tracker.track(s.cold("-z|")) },
                    source.timeout(.milliseconds(5), scheduler: s),
                    source.buffer(timeSpan: .milliseconds(3), scheduler: s).map { $0.joined() },
                    source.observe(on: s),
                ]
                for chain in chains {
                    _ = s.expect(chain, unsubscribe: ending == "!" ? "^-------!" : nil)
                }
            }
        }
        #expect(tracker.subscriptionsMade > 17)
        #expect(tracker.liveSubscriptions == 0)
    }

    @Test("the tracker notices a subscription that is never released")
    func trackerDetectsLeak() {
        let tracker = LifetimeTracker()
        let subject = PublishSubject<Int>()
        let subscription = tracker.track(subject).subscribe { _ in }
        #expect(tracker.liveSubscriptions == 1)
        subscription.dispose()
        #expect(tracker.liveSubscriptions == 0)
    }
}

@Suite("Disposables")
struct DisposableTests {
    @Test("composite disposes members once, in insertion order, and disposes late members at once")
    func composite() {
        var log: [Int] = []
        let composite = CompositeDisposable()
        composite.insert(Disposables.create { log.append(1) })
        let key = composite.insert(Disposables.create { log.append(2) })
        composite.insert(Disposables.create { log.append(3) })
        composite.remove(key!)
        composite.dispose()
        composite.dispose()
        #expect(composite.insert(Disposables.create { log.append(4) }) == nil)
        #expect(log == [2, 1, 3, 4])
    }

    @Test("single assignment disposes its member once, and a member set after disposal at once")
    func singleAssignment() {
        var log: [Int] = []
        let holder = SingleAssignmentDisposable()
        #expect(!holder.isDisposed)
        holder.set(Disposables.create { log.append(1) })
        #expect(log.isEmpty)
        holder.dispose()
        holder.dispose()
        #expect(holder.isDisposed)
        #expect(log == [1])

        let late = SingleAssignmentDisposable()
        late.dispose()
        late.set(Disposables.create { log.append(2) })
        #expect(log == [1, 2])
    }

    @Test("serial disposes the previous member when replaced")
    func serial() {
        var log: [Int] = []
        let serial = SerialDisposable()
        serial.set(Disposables.create { log.append(1) })
        serial.set(Disposables.create { log.append(2) })
        serial.dispose()
        serial.set(Disposables.create { log.append(3) })
        #expect(log == [1, 2, 3])
    }

    @Test("dispose bag disposes on deinit and on dispose")
    func bag() {
        var log: [Int] = []
        do {
            let bag = DisposeBag()
            Disposables.create { log.append(1) }.disposed(by: bag)
        }
        let bag = DisposeBag()
        bag.insert(Disposables.create { log.append(2) })
        bag.dispose()
        bag.insert(Disposables.create { log.append(3) })
        #expect(log == [1, 2, 3])
    }

    @Test("bind(to:keyPath:) writes values and stops with its object")
    func bind() {
        final class Label {
            var text = ""
            var optional: String? = "x"
        }
        let subject = PublishSubject<String>()
        var label: Label? = Label()
        subject.bind(to: label!, keyPath: \.text)
        let optional = PublishSubject<String?>()
        optional.bind(to: label!, keyPath: \.text, nilValue: "-")
        subject.onNext("hello")
        #expect(label?.text == "hello")
        optional.onNext(nil)
        #expect(label?.text == "-")
        weak let weakLabel = label
        label = nil
        subject.onNext("gone")
        #expect(weakLabel == nil)
    }
}
