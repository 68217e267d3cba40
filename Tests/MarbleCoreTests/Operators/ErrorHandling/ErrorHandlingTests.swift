import MarbleCore
import MarblesTesting
import Testing

@Suite("Error handling operators")
struct ErrorHandlingTests {
    @Test("catch continues with the handler's observable")
    func catchError() {
        marbles { s in
            let e1 = s.cold("--a--#")
            let e2 = s.cold("-x|")
            s.expect(e1.catch { _ in e2 }).toBe("--a---x|")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
            s.expect(subscriptions: e2.subscriptions).toBe("-----^-!")
            s.expect(s.cold("--a--|").catch { _ in e2 }).toBe("--a--|")
        }
    }

    @Test("catch forwards an error thrown by the handler")
    func catchThrows() {
        marbles { s in
            s.expect(s.cold("--#").catch { _ -> TestScheduler.ColdObservable<String> in throw TestError("handler") })
                .toBe("--#", error: TestError("handler"))
        }
    }

    @Test("catchAndReturn ends with a value")
    func catchAndReturn() {
        marbles { s in
            s.expect(s.cold("-a-#").catchAndReturn("z")).toBe("-a-(z|)")
        }
    }

    @Test("retry(n) resubscribes n times, then forwards the error (RxJS retry(count))")
    func retry() {
        marbles { s in
            let e1 = s.cold("--a-#")
            s.expect(e1.retry(2)).toBe("--a---a---a-#")
            s.expect(subscriptions: e1.subscriptions).toBe(["^---!", "----^---!", "--------^---!"])
            s.expect(s.cold("--a|").retry(3)).toBe("--a|")
        }
    }

    @Test("retry of a synchronously failing source loops instead of recursing")
    func retrySynchronous() {
        var attempts = 0
        let failing = Observable<Int>.create { observer in
            attempts += 1
            observer.onError(TestError())
            return Disposables.create()
        }
        var failed = false
        failing.retry(50_000).subscribe(onError: { _ in failed = true })
        #expect(attempts == 50_001)
        #expect(failed)
    }

    @Test("retry(when:) resubscribes when the notifier emits and ends when it ends (RxJS retryWhen)")
    func retryWhen() {
        marbles { s in
            let e1 = s.cold("--a-#")
            s.expect(e1.retry(when: { errors in errors.delay(.milliseconds(1), scheduler: s).take(2) })).toBe("--a----a--|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^---!", "-----^---!", "----------(^!)"])
            s.expect(s.cold("--a-#").retry(when: { errors in errors.flatMap { _ in Observable<Int>.error(TestError("stop")) } }))
                .toBe("--a-#", error: TestError("stop"))
        }
    }
}

@Suite("Side effects")
struct DoTests {
    @Test("do runs each hook at its point and leaves the stream alone")
    func doHooks() {
        var log: [String] = []
        marbles { s in
            let e1 = s.cold("-a-b-|")
            let observed = e1.do(
                onNext: { log.append("next \($0) @\(s.now)") },
                onError: { _ in log.append("error") },
                onCompleted: { log.append("completed @\(s.now)") },
                onSubscribe: { log.append("subscribe") },
                onSubscribed: { log.append("subscribed") },
                onDispose: { log.append("dispose @\(s.now)") })
            s.expect(observed).toBe("-a-b-|")
        }
        #expect(
            log == [
                "subscribe", "subscribed", "next a @0.001 seconds", "next b @0.003 seconds", "completed @0.005 seconds",
                "dispose @0.005 seconds",
            ])
    }

    @Test("do's onDispose runs once on unsubscription, and onNext errors end the stream")
    func doDispose() {
        var disposals = 0
        marbles { s in
            let e1 = s.cold("-a-b-|")
            s.expect(e1.do(onDispose: { disposals += 1 }), unsubscribe: "^--!").toBe("-a-")
            s.expect(e1.do(onNext: { if $0 == "b" { throw TestError() } })).toBe("-a-#", error: TestError())
            s.expect(s.cold("-#").do(onError: { _ in disposals += 10 })).toBe("-#")
        }
        #expect(disposals == 11)
    }
}
