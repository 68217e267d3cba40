import MarbleCore
import MarblesTesting
import Testing

@Suite("Merging and flattening operators")
struct FlatteningTests {
    @Test("merge interleaves values and completes after the last source (RxJS merge)")
    func merge() {
        marbles { s in
            let e1 = s.hot("---a---b---|")
            let e2 = s.hot("-c---d----|")
            s.expect(Observable.merge(e1, e2)).toBe("-c-a-d-b---|")
            s.expect(subscriptions: e1.subscriptions).toBe("^----------!")
            s.expect(subscriptions: e2.subscriptions).toBe("^---------!")
        }
    }

    @Test("merge delivers same-frame values in the sources' creation order")
    func mergeSameFrame() {
        marbles { s in
            let e1 = s.hot("---a---b---|")
            let e2 = s.hot("---x---y---|")
            s.expect(e1.merge(with: e2)).toBe("---(ax)(by)|")
        }
    }

    @Test("merge fails with the first error and unsubscribes every source")
    func mergeError() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            let e2 = s.hot("----#")
            s.expect(Observable.merge(e1, e2)).toBe("--a-#")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
            s.expect(subscriptions: e2.subscriptions).toBe("^---!")
        }
    }

    @Test("merge of an observable of observables, unsubscribed early")
    func mergeUnsubscribe() {
        marbles { s in
            let x = s.cold("--a--b--|")
            let y = s.cold("--c--d--|")
            let outer = s.hot("-x--y--|", values: ["x": x, "y": y])
            s.expect(outer.merge(), unsubscribe: "^------!").toBe("---a--[bc]")
            s.expect(subscriptions: x.subscriptions).toBe("-^-----!")
            s.expect(subscriptions: y.subscriptions).toBe("----^--!")
        }
    }

    @Test("merge(maxConcurrent:) queues inner observables beyond the limit (RxJS mergeAll(2))")
    func mergeMaxConcurrent() {
        marbles { s in
            let x = s.cold("----a|")
            let y = s.cold("--b-|")
            let z = s.cold("-c|")
            let outer = s.hot("-x-y-z---|", values: ["x": x, "y": y, "z": z])
            s.expect(outer.merge(maxConcurrent: 2)).toBe("-----[ab]-c-|")
            s.expect(subscriptions: x.subscriptions).toBe("-^----!")
            s.expect(subscriptions: y.subscriptions).toBe("---^---!")
            s.expect(subscriptions: z.subscriptions).toBe("------^-!")
        }
    }

    @Test("concat subscribes to the next source when the previous completes (RxJS concat)")
    func concat() {
        marbles { s in
            let e1 = s.cold("--a--b-|")
            let e2 = s.cold("--x---y-|")
            s.expect(e1.concat(e2)).toBe("--a--b---x---y-|")
            s.expect(subscriptions: e1.subscriptions).toBe("^------!")
            s.expect(subscriptions: e2.subscriptions).toBe("-------^-------!")
        }
    }

    @Test("concat stops at an error and never subscribes to later sources")
    func concatError() {
        marbles { s in
            let e1 = s.cold("--a--#")
            let e2 = s.cold("--x--|")
            s.expect(Observable.concat(e1, e2)).toBe("--a--#")
            s.expect(subscriptions: e2.subscriptions).toBe([String]())
        }
    }

    @Test("concat of many synchronous sources does not recurse")
    func concatManySynchronous() {
        let sources = (0..<20_000).map { Observable.just($0) }
        var count = 0
        var completed = false
        Observable.concat(sources).subscribe(onNext: { _ in count += 1 }, onCompleted: { completed = true })
        #expect(count == 20_000)
        #expect(completed)
    }

    @Test("flatMap merges inner observables (RxJS mergeMap)")
    func flatMap() {
        marbles { s in
            let inner = s.cold("a-b-|")
            let outer = s.hot("-x---y---|")
            s.expect(outer.flatMap { _ in inner }).toBe("-a-b-a-b-|")
            s.expect(subscriptions: inner.subscriptions).toBe(["-^---!", "-----^---!"])
        }
    }

    @Test("flatMap(maxConcurrent: 1) is concatMap: inners wait their turn")
    func flatMapMaxConcurrentOne() {
        marbles { s in
            let inner = s.cold("--a-b|")
            let outer = s.hot("-x-y------|")
            s.expect(outer.flatMap(maxConcurrent: 1) { _ in inner }).toBe("---a-b--a-b|")
            s.expect(outer.concatMap { _ in inner }).toBe("---a-b--a-b|")
            s.expect(subscriptions: inner.subscriptions).toBe(["-^----!", "-^----!", "------^----!", "------^----!"])
        }
    }

    @Test("flatMap(maxConcurrent: 0) is unlimited")
    func flatMapMaxConcurrentZero() {
        marbles { s in
            let inner = s.cold("--a-b|")
            s.expect(s.hot("-x-y------|").flatMap(maxConcurrent: 0) { _ in inner }).toBe("---a-[ba]-b--|")
        }
    }

    @Test("flatMap forwards a selector error and an inner error")
    func flatMapErrors() {
        marbles { s in
            let outer = s.hot("-x---y---|")
            s.expect(outer.flatMap { v -> TestScheduler.ColdObservable<String> in throw TestError(v) })
                .toBe("-#", error: TestError("x"))
            let inner = s.cold("-a-#")
            s.expect(s.hot("-x---------|").flatMap { _ in inner }).toBe("--a-#")
        }
    }

    @Test("flatMapLatest switches to the newest inner, unsubscribing the previous (RxJS switchMap)")
    func flatMapLatest() {
        marbles { s in
            let x = s.cold("--a--b--c--d--|")
            let y = s.cold("--e--f--|")
            let outer = s.hot("---x---y------|", values: ["x": x, "y": y])
            s.expect(outer.flatMapLatest { $0 }).toBe("-----a---e--f--|")
            s.expect(subscriptions: x.subscriptions).toBe("---^---!")
            s.expect(subscriptions: y.subscriptions).toBe("-------^-------!")
        }
    }

    @Test("flatMapLatest completes only after the outer and the latest inner")
    func flatMapLatestCompletion() {
        marbles { s in
            let inner = s.cold("--a--|")
            s.expect(s.hot("-x|").flatMapLatest { _ in inner }).toBe("---a--|")
            s.expect(s.hot("-x------|").flatMapLatest { _ in inner }).toBe("---a----|")
        }
    }

    @Test("a synchronous switch records (^!) for the abandoned inner")
    func switchLatestSynchronous() {
        marbles { s in
            let x = s.cold("--a|")
            let y = s.cold("--b|")
            let outer = s.cold("(xy)|", values: ["x": x, "y": y])
            s.expect(outer.switchLatest()).toBe("--b-|")
            s.expect(subscriptions: x.subscriptions).toBe("(^!)")
            s.expect(subscriptions: y.subscriptions).toBe("^--!")
        }
    }

    @Test("flatMapFirst ignores outer values while an inner is active (RxJS exhaustMap)")
    func flatMapFirst() {
        marbles { s in
            let x = s.cold("--a--b--|")
            let y = s.cold("--c--d--|")
            let outer = s.hot("-x--y------y--|", values: ["x": x, "y": y])
            s.expect(outer.flatMapFirst { $0 }).toBe("---a--b------c--d--|")
            s.expect(subscriptions: x.subscriptions).toBe("-^-------!")
            s.expect(subscriptions: y.subscriptions).toBe("-----------^-------!")
        }
    }

    @Test("observables of observables record inner timelines relative to their emission")
    func higherOrderRecording() {
        marbles { s in
            let outer = s.hot("-a---b---|").map { value in s.cold("--\(value)|") }
            s.expect(outer).toBe("-x---y---|", values: ["x": s.cold("--a|"), "y": s.cold("--b|")])
        }
    }
}
