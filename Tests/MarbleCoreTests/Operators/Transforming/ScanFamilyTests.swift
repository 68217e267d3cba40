import MarbleCore
import MarblesTesting
import Testing

@Suite("mergeScan, switchScan, expand")
struct ScanFamilyTests {
    @Test("mergeScan: each inner value becomes the state; a waiting value is accumulated when its inner starts")
    func mergeScan() {
        marbles { s in
            let e1 = s.hot("-a-b------|")
            let acc: (String, String) -> TestScheduler.ColdObservable<String> = { acc, x in s.cold("---v|", values: ["v": acc + x]) }
            s.expect(e1.mergeScan("", maxConcurrent: 1, accumulator: acc)).toBe("----x---y-|", values: ["x": "a", "y": "ab"])
            s.expect(subscriptions: e1.subscriptions).toBe("^---------!")
            // Unlimited: b starts while a's inner runs, from the seed.
            s.expect(s.hot("-a-b------|").mergeScan("", accumulator: acc)).toBe("----x-y---|", values: ["x": "a", "y": "b"])
            s.expect(s.hot("-a-b-|").mergeScan("") { acc, x in Observable.just(acc + x) }).toBe("-x-y-|", values: ["x": "a", "y": "ab"])
            s.expect(s.hot("---|").mergeScan("", accumulator: acc)).toBe("---|")
            s.expect(s.hot("-a--#").mergeScan("", accumulator: acc)).toBe("----#")
            s.expect(s.hot("-a--").mergeScan("") { _, _ -> Observable<String> in throw TestError() })
                .toBe("-#", error: TestError())
            let e2 = s.hot("-a-b------|")
            s.expect(e2.mergeScan("", accumulator: acc), unsubscribe: "^-----!").toBe("----x-", values: ["x": "a"])
            s.expect(subscriptions: e2.subscriptions).toBe("^-----!")
        }
    }

    @Test("switchScan follows the latest inner; its values become the state")
    func switchScan() {
        marbles { s in
            let acc: (String, String) -> TestScheduler.ColdObservable<String> = { acc, x in s.cold("---v|", values: ["v": acc + x]) }
            let e1 = s.hot("-a-b-------|")
            s.expect(e1.switchScan("", accumulator: acc)).toBe("------y----|", values: ["y": "b"])
            s.expect(subscriptions: e1.subscriptions).toBe("^----------!")
            s.expect(s.hot("-a-----b---|").switchScan("", accumulator: acc)).toBe("----x-----y|", values: ["x": "a", "y": "ab"])
            // Completion waits for the latest inner.
            s.expect(s.hot("-a|").switchScan("", accumulator: acc)).toBe("----x|", values: ["x": "a"])
            s.expect(s.hot("-a-#").switchScan("", accumulator: acc)).toBe("---#")
            let e2 = s.hot("-a------")
            s.expect(e2.switchScan("", accumulator: acc), unsubscribe: "^--!").toBe("---")
            s.expect(subscriptions: e2.subscriptions).toBe("^--!")
        }
    }

    @Test("expand feeds every value back through the transform until inners come back empty (RxJS expand)")
    func expand() {
        marbles { s in
            let numbers = ["a": 1, "b": 2, "c": 4, "d": 8, "e": 16]
            let e1 = s.cold("(a|)", values: numbers)
            let doubling = e1.expand { x in x == 16 ? Observable.empty() : s.cold("---(z|)", values: ["z": x + x]).asObservable() }
            s.expect(doubling).toBe("a--b--c--d--(e|)", values: numbers)
            s.expect(subscriptions: e1.subscriptions).toBe("(^!)")
            s.expect(s.hot("-a--#", values: numbers).expand { x in s.cold("------(z|)", values: ["z": x]) })
                .toBe("-a--#", values: numbers)
            s.expect(s.hot("-a---", values: numbers).expand { _ -> Observable<Int> in throw TestError() })
                .toBe("-(a#)", values: numbers, error: TestError())
            let e2 = s.hot("-a------", values: numbers)
            s.expect(e2.expand { x in s.cold("---(z|)", values: ["z": x + x]) }, unsubscribe: "^-----!").toBe("-a--b-", values: numbers)
            s.expect(subscriptions: e2.subscriptions).toBe("^-----!")
        }
    }

    @Test("expand(maxConcurrent:) emits a waiting value when its inner starts")
    func expandConcurrency() {
        marbles { s in
            let values = ["a": 1, "b": 10, "c": 2, "d": 11, "e": 12]
            let limited = s.cold("(ab|)", values: values).expand(maxConcurrent: 1) { x in
                x % 10 < 2 ? s.cold("----(z|)", values: ["z": x + 1]).asObservable() : Observable.empty()
            }
            s.expect(limited).toBe("a---b---(cd)(e|)", values: values)
        }
    }

    @Test("a synchronous expansion runs in a loop, not by recursion")
    func expandSynchronously() {
        var count = 0
        _ = Observable.just(1).expand { Observable.just($0 + 1) }.take(20_000).subscribe(onNext: { _ in count += 1 })
        #expect(count == 20_000)
    }
}

@Suite("delayWhen, delay(until:), throttle(leading:trailing:)")
struct DelayingTests {
    @Test("delayWhen: each value waits for its duration's first value; an empty duration drops it")
    func delayWhen() {
        marbles { s in
            let durations = ["a": s.cold("---x"), "b": s.cold("-x"), "c": s.cold("|")]
            let e1 = s.hot("-a--b--c|")
            s.expect(e1.delayWhen { durations[$0]! }).toBe("----ab--|")
            s.expect(subscriptions: e1.subscriptions).toBe("^-------!")
            s.expect(subscriptions: durations["a"]!.subscriptions).toBe("-^--!")
            // Completion waits for a value still delayed.
            s.expect(s.hot("-a|").delayWhen { _ in s.cold("---x") }).toBe("----(a|)")
            s.expect(s.hot("-a-#").delayWhen { _ in s.cold("---x") }).toBe("---#")
            s.expect(s.hot("-a---").delayWhen { _ in s.cold("-#") }).toBe("--#")
            s.expect(s.hot("-a---").delayWhen { _ -> Observable<Int> in throw TestError() }).toBe("-#", error: TestError())
            let e2 = s.hot("-a--b---")
            s.expect(e2.delayWhen { _ in s.cold("---x") }, unsubscribe: "^----!").toBe("----a")
            s.expect(subscriptions: e2.subscriptions).toBe("^----!")
        }
    }

    @Test("delay(until:) holds values until a virtual instant, then passes them in order")
    func delayUntil() {
        marbles { s in
            let e1 = s.hot("-a--b-----c|")
            s.expect(e1.delay(until: .milliseconds(6), scheduler: s)).toBe("------(ab)c|")
            s.expect(subscriptions: e1.subscriptions).toBe("^----------!")
            s.expect(s.hot("-a|").delay(until: .milliseconds(4), scheduler: s)).toBe("----(a|)")
            s.expect(s.hot("-a-#").delay(until: .milliseconds(6), scheduler: s)).toBe("---#")
            let e2 = s.hot("-a--b---")
            s.expect(e2.delay(until: .milliseconds(6), scheduler: s), unsubscribe: "^---!").toBe("----")
            s.expect(subscriptions: e2.subscriptions).toBe("^---!")
        }
    }

    @Test("throttle(leading:trailing:) follows RxJS throttleTime's configuration")
    func throttleConfiguration() {
        marbles { s in
            let source = "-a-b-c-----d----|"
            let window = Duration.milliseconds(3)
            s.expect(s.hot(source).throttle(window, leading: false, trailing: true, scheduler: s)).toBe("----b--c------d-|")
            s.expect(s.hot(source).throttle(window, leading: true, trailing: true, scheduler: s)).toBe("-a--b--c---d----|")
            s.expect(s.hot(source).throttle(window, leading: true, trailing: false, scheduler: s)).toBe("-a---c-----d----|")
            s.expect(s.hot(source).throttle(window, leading: false, trailing: false, scheduler: s)).toBe("----------------|")
            // Completion waits for the trailing value.
            s.expect(s.hot("-a|").throttle(window, leading: false, trailing: true, scheduler: s)).toBe("----(a|)")
            s.expect(s.hot("-a-#").throttle(window, leading: false, trailing: true, scheduler: s)).toBe("---#")
            let e1 = s.hot("-a-b-c---")
            s.expect(e1.throttle(window, leading: false, trailing: true, scheduler: s), unsubscribe: "^---!").toBe("----")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }
}
