import MarbleCore
import MarblesTesting
import Testing

@Suite("Creation")
struct CreationTests {
    @Test("just, of, from, range, empty, error emit synchronously at subscription")
    func synchronousSources() {
        marbles { s in
            s.expect(Observable.just("a")).toBe("(a|)")
            s.expect(Observable.of("a", "b")).toBe("(ab|)")
            s.expect(Observable.from(["a", "b", "c"])).toBe("(abc|)")
            s.expect(Observable<Int>.range(start: 3, count: 2)).toBe("(ab|)", values: ["a": 3, "b": 4])
            s.expect(Observable<String>.empty()).toBe("|")
            s.expect(Observable<String>.error(TestError())).toBe("#", error: TestError())
            s.expect(Observable<String>.never(), unsubscribe: "---!").toBe("---")
        }
    }

    @Test("create forwards events, drops those after termination, disposes its resources")
    func create() {
        var disposed = 0
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)
            observer.onError(TestError())
            return Disposables.create { disposed += 1 }
        }
        var events: [Event<Int>] = []
        let subscription = source.subscribe { events.append($0) }
        subscription.dispose()
        subscription.dispose()
        #expect(events == [.next(1), .completed])
        #expect(disposed == 1)
    }

    @Test("a source can be disposed from inside its own onNext")
    func disposeFromInsideOnNext() {
        var received: [Int] = []
        var subscription: (any Disposable)?
        let subject = PublishSubject<Int>()
        subscription = subject.subscribe(onNext: { value in
            received.append(value)
            subscription?.dispose()
        })
        subject.onNext(1)
        subject.onNext(2)
        #expect(received == [1])
        #expect(!subject.hasObservers)
    }

    @Test("deferred builds a source per subscription; a thrown error becomes the error event")
    func deferred() {
        var builds = 0
        marbles { s in
            let source = Observable<String>.deferred {
                builds += 1
                return s.cold("-\(builds)|")
            }
            s.expect(source).toBe("-1|")
            s.expect(source).toBe("-2|")
            s.expect(Observable<String>.deferred { () throws -> Observable<String> in throw TestError() }).toBe("#", error: TestError())
        }
        #expect(builds == 2)
    }
}
