import MarbleCore
import MarblesTesting
import Testing

@Suite("Subjects")
struct SubjectTests {
    @Test("PublishSubject delivers to current subscribers only; late ones get the terminal event")
    func publishSubject() {
        let subject = PublishSubject<Int>()
        var first: [Event<Int>] = []
        var second: [Event<Int>] = []
        subject.onNext(0)
        let a = subject.subscribe { first.append($0) }
        subject.onNext(1)
        subject.subscribe { second.append($0) }
        subject.onNext(2)
        a.dispose()
        subject.onNext(3)
        subject.onCompleted()
        subject.onNext(4)
        var late: [Event<Int>] = []
        subject.subscribe { late.append($0) }
        #expect(first == [.next(1), .next(2)])
        #expect(second == [.next(2), .next(3), .completed])
        #expect(late == [.completed])
        #expect(!subject.hasObservers)
    }

    @Test("BehaviorSubject replays its current value, then follows")
    func behaviorSubject() {
        let subject = BehaviorSubject(value: 1)
        var events: [Event<Int>] = []
        subject.onNext(2)
        subject.subscribe { events.append($0) }
        subject.onNext(3)
        subject.onError(TestError())
        var late: [Event<Int>] = []
        subject.subscribe { late.append($0) }
        #expect(events == [.next(2), .next(3), .error(TestError())])
        #expect(late == [.error(TestError())])
        #expect(subject.value == 3)
    }

    @Test("ReplaySubject replays its buffer and terminal event")
    func replaySubject() {
        let subject = ReplaySubject<Int>(bufferSize: 2)
        for i in 1...4 { subject.onNext(i) }
        subject.onCompleted()
        var events: [Event<Int>] = []
        subject.subscribe { events.append($0) }
        #expect(events == [.next(3), .next(4), .completed])
    }

    @Test("subjects in marble tests: hot-like delivery at virtual times")
    func subjectInMarbles() {
        marbles { s in
            let subject = PublishSubject<String>()
            let e1 = s.hot("-a-b-|")
            e1.subscribe(subject)
            s.expect(subject, unsubscribe: "--^---").toBe("---b-|")
        }
    }
}

@Suite("Sharing")
struct SharingTests {
    @Test("share() subscribes once for concurrent subscribers and resubscribes after")
    func share() {
        marbles { s in
            let e1 = s.cold("-a-b-|")
            let shared = e1.share()
            s.expect(shared).toBe("-a-b-|")
            s.expect(shared, unsubscribe: "--^-----").toBe("---b-|")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
    }

    @Test("share(replay:) replays to late subscribers")
    func shareReplay() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|")
            let shared = e1.share(replay: 1)
            s.expect(shared).toBe("-a-b-c-|")
            s.expect(shared, unsubscribe: "--^-----").toBe("--ab-c-|")
            s.expect(subscriptions: e1.subscriptions).toBe("^------!")
        }
    }

    @Test("refCount disconnects when the last subscriber leaves and reconnects later")
    func refCount() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|")
            let shared = e1.publish().refCount()
            s.expect(shared, unsubscribe: "^--!").toBe("-a-")
            s.expect(shared, unsubscribe: "-----^--!").toBe("------a-")
            s.expect(subscriptions: e1.subscriptions).toBe(["^--!", "-----^--!"])
        }
    }

    @Test("publish shares from connect() on; disposing the connection stops it")
    func publishConnect() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|")
            let published = e1.publish()
            s.expect(published).toBe("---a-")
            var connection: (any Disposable)?
            s.schedule(after: .milliseconds(2)) { connection = published.connect() }
            s.schedule(after: .milliseconds(5)) { connection?.dispose() }
            s.expect(subscriptions: e1.subscriptions).toBe("--^--!")
        }
    }

    @Test("multicast through a fixed replay subject keeps replaying after the source ended")
    func multicastReplay() {
        let source = Observable.from([1, 2, 3])
        let connectable = source.multicast(ReplaySubject(bufferSize: 10))
        connectable.connect()
        var values: [Int] = []
        connectable.subscribe(onNext: { values.append($0) })
        #expect(values == [1, 2, 3])
    }
}
