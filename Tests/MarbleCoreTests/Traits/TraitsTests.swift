import Dispatch
import MarbleCore
import MarblesTesting
import Testing

@Suite("Single, Maybe, Completable")
struct TraitsTests {
    @Test("asSingle: the only value at completion; none or a second one fails")
    func asSingle() {
        marbles { s in
            let e1 = s.hot("-a--|")
            s.expect(e1.asSingle()).toBe("----(a|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
            s.expect(s.hot("-a-b-|").asSingle()).toBe("---#", error: RxError.moreThanOneElement)
            s.expect(s.hot("---|").asSingle()).toBe("---#", error: RxError.noElements)
            s.expect(s.hot("-a-#").asSingle()).toBe("---#")
            let e2 = s.hot("-a--|")
            s.expect(e2.asSingle(), unsubscribe: "^-!").toBe("--")
            s.expect(subscriptions: e2.subscriptions).toBe("^-!")
        }
    }

    @Test("asMaybe: the value, if any, at completion; a second one fails")
    func asMaybe() {
        marbles { s in
            s.expect(s.hot("-a--|").asMaybe()).toBe("----(a|)")
            s.expect(s.hot("---|").asMaybe()).toBe("---|")
            s.expect(s.hot("-a-b-|").asMaybe()).toBe("---#", error: RxError.moreThanOneElement)
            s.expect(s.hot("-#").asMaybe()).toBe("-#")
        }
    }

    @Test("asCompletable keeps only completion and error; andThen continues after completion")
    func asCompletable() {
        marbles { s in
            s.expect(s.hot("-a-b-|").asCompletable().andThen(s.cold("-x|"))).toBe("------x|")
            s.expect(s.hot("-a-#").asCompletable().andThen(s.cold("-x|"))).toBe("---#")
            let e1 = s.hot("-a-b-|")
            s.expect(e1.asCompletable(), unsubscribe: "^--!").toBe("---")
            s.expect(subscriptions: e1.subscriptions).toBe("^--!")
        }
    }

    @Test("Single.create reports its first result only; subscribe gets success or failure")
    func singleCreate() {
        var results: [String] = []
        var disposed = 0
        let single = Single<Int>.create { done in
            done(.success(1))
            done(.success(2))
            done(.failure(TestError()))
            return Disposables.create { disposed += 1 }
        }
        single.map { $0 * 10 }.subscribe(onSuccess: { results.append("ok \($0)") }, onFailure: { results.append("fail \($0)") })
        Single<Int>.error(TestError()).subscribe(onSuccess: { results.append("ok \($0)") }, onFailure: { _ in results.append("failed") })
        #expect(results == ["ok 10", "failed"])
        #expect(disposed == 1)
    }

    @Test("Maybe reports success or completion, never both; Completable reports completion")
    func maybeAndCompletable() {
        var events: [String] = []
        Maybe.just(1).subscribe(onSuccess: { events.append("value \($0)") }, onCompleted: { events.append("empty") })
        Maybe<Int>.empty().subscribe(onSuccess: { events.append("value \($0)") }, onCompleted: { events.append("empty") })
        Completable.empty().subscribe(onCompleted: { events.append("done") })
        Completable.error(TestError()).subscribe(onError: { _ in events.append("error") })
        #expect(events == ["value 1", "empty", "done", "error"])
    }

    @Test("Single.value awaits the value")
    func singleValue() async throws {
        #expect(try await Single.just(5).value == 5)
        await #expect(throws: TestError()) { try await Single<Int>.error(TestError()).value }
    }
}

@Suite("repeat with a delay")
struct RepeatDelayTests {
    @Test("repeat(count, delay:) waits between passes, not after the last")
    func repeatDelay() {
        marbles { s in
            let e1 = s.cold("-a|")
            s.expect(e1.repeat(3, delay: .milliseconds(2), scheduler: s)).toBe("-a---a---a|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^-!", "----^-!", "--------^-!"])
            s.expect(s.cold("-a#").repeat(3, delay: .milliseconds(2), scheduler: s)).toBe("-a#")
            s.expect(s.cold("-a|").repeat(0, delay: .milliseconds(2), scheduler: s)).toBe("|")
            let e2 = s.cold("-a|")
            s.expect(e2.repeat(delay: .milliseconds(1), scheduler: s), unsubscribe: "^------!").toBe("-a--a--")
            s.expect(subscriptions: e2.subscriptions).toBe(["^-!", "---^-!", "------^!"])
        }
    }
}

/// Serialized: `MainScheduler.instance` is shared, and an action another test still has waiting
/// on the main queue rightly stops it from running inline.
@Suite("MainScheduler", .serialized)
struct MainSchedulerTests {
    @Test("observe(on: MainScheduler.instance) delivers on the main queue, in order")
    func deliversOnMain() async {
        let values = await withCheckedContinuation { (done: CheckedContinuation<[Bool], Never>) in
            let seen = Locked<[Bool]>([])
            DispatchQueue.global().async {
                _ = Observable.of(1, 2, 3).observe(on: MainScheduler.instance).subscribe(
                    onNext: { _ in seen.withLock { $0.append(MainScheduler.isOnMainQueue) } },
                    onCompleted: { done.resume(returning: seen.withLock { $0 }) })
            }
        }
        #expect(values == [true, true, true])
    }

    @Test("instance runs at once on the main queue when nothing waits; asyncInstance enqueues")
    func inlineOnMain() async {
        let order = await withCheckedContinuation { (done: CheckedContinuation<[String], Never>) in
            DispatchQueue.main.async {
                var order: [String] = []
                MainScheduler.instance.schedule { order.append("inline") }
                MainScheduler.asyncInstance.schedule {
                    order.append("async")
                    done.resume(returning: order)
                }
                order.append("after")
            }
        }
        #expect(order == ["inline", "after", "async"])
    }
}
