import Foundation
import MarbleCore
import MarblesTesting
import Testing

@Suite("window, groupBy, partition")
struct WindowingTests {
    @Test("window(count:) closes a window at its count-th value and opens the next right after (RxJS windowCount)")
    func windowCount() {
        marbles { s in
            let e1 = s.hot("-a-b-c-d-|")
            s.expect(e1.window(count: 2))
                .toBe("w--x---y-|", values: ["w": s.cold("-a-(b|)"), "x": s.cold("--c-(d|)"), "y": s.cold("--|")])
            s.expect(subscriptions: e1.subscriptions).toBe("^--------!")
            s.expect(s.hot("-a-b-c|").window(count: 2, skip: 1))
                .toBe("wx-y-z|", values: ["w": s.cold("-a-(b|)"), "x": s.cold("--b-(c|)"), "y": s.cold("--c|"), "z": s.cold("-|")])
            // skip above count drops the values between windows.
            s.expect(s.hot("-a-b-c-d|").window(count: 1, skip: 2))
                .toBe("w--x---y|", values: ["w": s.cold("-(a|)"), "x": s.cold("--(c|)"), "y": s.cold("-|")])
            s.expect(s.hot("-a-#").window(count: 3)).toBe("w--#", values: ["w": s.cold("-a-#")])
            let e2 = s.hot("-a-b-c-d-|")
            s.expect(e2.window(count: 2), unsubscribe: "^-----!").toBe("w--x--", values: ["w": s.cold("-a-(b|)"), "x": s.cold("--c")])
            s.expect(subscriptions: e2.subscriptions).toBe("^-----!")
        }
    }

    @Test("window(boundary) and window(timeSpan:) split into consecutive windows")
    func windowBoundaryAndTime() {
        marbles { s in
            let e1 = s.hot("-a-b-c-d|")
            let boundary = s.hot("--x---x---")
            s.expect(e1.window(boundary)).toBe("w-x---y-|", values: ["w": s.cold("-a|"), "x": s.cold("-b-c|"), "y": s.cold("-d|")])
            s.expect(subscriptions: boundary.subscriptions).toBe("^-------!")
            s.expect(s.hot("-a--b-c|").window(s.hot("---#"))).toBe("w--#", values: ["w": s.cold("-a-#")])
            s.expect(s.hot("-ab--c-d|").window(timeSpan: .milliseconds(3), scheduler: s))
                .toBe("w--x--y-|", values: ["w": s.cold("-ab|"), "x": s.cold("--c|"), "y": s.cold("-d|")])
            let e2 = s.hot("-a-b-c-d|")
            s.expect(e2.window(timeSpan: .milliseconds(3), scheduler: s), unsubscribe: "^-!").toBe("w-", values: ["w": s.cold("-a")])
            s.expect(subscriptions: e2.subscriptions).toBe("^-!")
        }
    }

    @Test("window(toggle:closing:) opens a window per opening and closes it at its closing's first event")
    func windowToggle() {
        marbles { s in
            let e1 = s.hot("-a-b-c-d-e|")
            let openings = s.hot("--o---o---")
            s.expect(e1.window(toggle: openings) { _ in s.cold("--x") })
                .toBe("--w---x---|", values: ["w": s.cold("-b|"), "x": s.cold("-d|")])
            s.expect(subscriptions: openings.subscriptions).toBe("^---------!")
            // A closing that completes closes too; overlapping windows both get the value.
            s.expect(s.hot("-a-b--c|").window(toggle: s.hot("-oo---")) { _ in s.cold("---|") })
                .toBe("-wx----|", values: ["w": s.cold("--b|"), "x": s.cold("-b-|")])
            s.expect(s.hot("-a-b|").window(toggle: s.hot("-o--")) { _ -> TestScheduler.ColdObservable<String> in throw TestError() })
                .toBe("-(w#)", values: ["w": s.cold("#", error: TestError())], error: TestError())
        }
    }

    @Test("window(closing:) resubscribes its closing after each window (RxJS windowWhen)")
    func windowWhen() {
        marbles { s in
            let e1 = s.hot("-a-b-c-|")
            s.expect(e1.window(closing: { s.cold("--x") }))
                .toBe("w-x-y-z|", values: ["w": s.cold("-a|"), "x": s.cold("-b|"), "y": s.cold("-c|"), "z": s.cold("-|")])
            s.expect(s.hot("--a-b|").window(closing: { s.cold("-#") })).toBe("w#", values: ["w": s.cold("-#")])
        }
    }

    @Test("groupBy emits a group at each new key; groups keep the source subscribed after the output leaves")
    func groupBy() {
        marbles { s in
            let e1 = s.hot("-a-b-A-B-|")
            s.expect(e1.groupBy { $0.lowercased() })
                .toBe("-x-y-----|", values: ["x": s.cold("a---A---|"), "y": s.cold("b---B-|")])
            s.expect(subscriptions: e1.subscriptions).toBe("^--------!")
            let e2 = s.hot("-a-b-A-B-|")
            s.expect(e2.groupBy { $0.lowercased() }, unsubscribe: "^---!")
                .toBe("-x-y", values: ["x": s.cold("a---A---|"), "y": s.cold("b---B-|")])
            s.expect(subscriptions: e2.subscriptions).toBe("^--------!")
            s.expect(s.hot("-a-#").groupBy { $0 }).toBe("-x-#", values: ["x": s.cold("a-#")])
            s.expect(
                s.hot("-a-b").groupBy { key -> String in
                    if key == "b" { throw TestError() }
                    return key
                }
            )
            .toBe("-x-#", values: ["x": s.cold("a-#", error: TestError())], error: TestError())
        }
    }

    @Test("groupBy unsubscribes the source once the output and every group subscription have ended")
    func groupByRefCount() {
        let source = PublishSubject<Int>()
        var groups: [GroupedObservable<Bool, Int>] = []
        var seen: [Int] = []
        var unsubscribed = false
        let output = source.do(onDispose: { unsubscribed = true }).groupBy { $0 % 2 == 0 }.subscribe(onNext: { groups.append($0) })
        source.onNext(1)
        let odd = groups[0].subscribe(onNext: { seen.append($0) })
        output.dispose()
        source.onNext(3)
        #expect(!unsubscribed)
        odd.dispose()
        #expect(unsubscribed)
        #expect(seen == [3])
    }

    @Test("partition splits by a predicate into two filtered subscriptions")
    func partition() {
        marbles { s in
            let e1 = s.hot("-a-b-c-|")
            let (matching, rest) = e1.partition { $0 != "b" }
            s.expect(matching).toBe("-a---c-|")
            s.expect(rest).toBe("---b---|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^------!", "^------!"])
        }
    }
}

@Suite("Utility operators: using, repeatElement, withUnretained, then, take(untilReplacedBy:), contains, combinePrevious")
struct UtilityOperatorTests {
    final class Resource: Disposable, @unchecked Sendable {
        var disposals = 0
        var isDisposed: Bool { disposals > 0 }
        func dispose() { disposals += 1 }
    }

    @Test("using disposes its resource when the subscription ends, whichever way")
    func using() {
        marbles { s in
            var resources: [Resource] = []
            func make() -> Resource {
                let resource = Resource()
                resources.append(resource)
                return resource
            }
            s.expect(Observable.using(make) { _ in s.cold("-a|").asObservable() }).toBe("-a|")
            s.expect(Observable.using(make) { _ in s.cold("-a#").asObservable() }).toBe("-a#")
            s.expect(Observable.using(make) { _ in s.cold("-a-b").asObservable() }, unsubscribe: "^--!").toBe("-a-")
            s.expect(Observable<String>.using(make) { _ in throw TestError() }).toBe("#", error: TestError())
            s.flush()
            #expect(resources.map(\.disposals) == [1, 1, 1, 1])
        }
    }

    @Test("repeatElement emits without end until taken; on a scheduler one emission per action")
    func repeatElement() {
        marbles { s in
            s.expect(Observable.repeatElement("a").take(3)).toBe("(aaa|)")
            s.expect(Observable.repeatElement("a", scheduler: s).take(3)).toBe("(aaa|)")
        }
    }

    @Test("withUnretained pairs values with a live object and completes once it is gone")
    func withUnretained() {
        final class Owner: Sendable { let name = "o" }
        var owner: Owner? = Owner()
        var seen: [String] = []
        var completed = false
        let source = PublishSubject<Int>()
        _ = source.withUnretained(owner!).subscribe(
            onNext: { object, value in seen.append("\(object.name)\(value)") }, onCompleted: { completed = true })
        source.onNext(1)
        owner = nil
        #expect(!completed)
        source.onNext(2)
        #expect(seen == ["o1"])
        #expect(completed)
        let kept = Owner()
        marbles { s in
            s.expect(s.hot("-a-#").withUnretained(kept) { $0.name + $1 }).toBe("-x-#", values: ["x": "oa"])
            s.expect(s.hot("-a-|").withUnretained(kept) { _, _ -> String in throw TestError() }).toBe("-#", error: TestError())
        }
        withExtendedLifetime(kept) {}
    }

    @Test("withUnretained's observable, kept by its user, does not keep the object alive")
    func withUnretainedKeptObservable() {
        final class Owner: Sendable { let name = "o" }
        var owner: Owner? = Owner()
        weak let watched = owner
        let source = PublishSubject<Int>()
        let paired = source.withUnretained(owner!) { $0.name + String($1) }
        var seen: [String] = []
        var completed = false
        _ = paired.subscribe(onNext: { seen.append($0) }, onCompleted: { completed = true })
        source.onNext(1)
        owner = nil
        #expect(watched == nil)
        source.onNext(2)
        #expect(seen == ["o1"])
        #expect(completed)
        withExtendedLifetime(paired) {}
    }

    @Test("then ignores the values and continues with the next observable at completion (ReactiveCocoa then:)")
    func then() {
        marbles { s in
            let e1 = s.hot("-a-b-|")
            let next = s.cold("-x|")
            s.expect(e1.then { next }).toBe("------x|")
            s.expect(subscriptions: next.subscriptions).toBe("-----^-!")
            s.expect(s.hot("-a-#").then { s.cold("-x|") }).toBe("---#")
            s.expect(s.hot("-a-b-|").then { () -> TestScheduler.ColdObservable<String> in throw TestError() }).toBe(
                "-----#", error: TestError())
            let e2 = s.hot("-a-b-|")
            s.expect(e2.then { s.cold("-x|") }, unsubscribe: "^--!").toBe("---")
            s.expect(subscriptions: e2.subscriptions).toBe("^--!")
        }
    }

    @Test("take(untilReplacedBy:) switches to the replacement at its first event (ReactiveCocoa takeUntilReplacement:)")
    func takeUntilReplacement() {
        marbles { s in
            let e1 = s.hot("-a-b-c|")
            s.expect(e1.take(untilReplacedBy: s.hot("----x-y|"))).toBe("-a-bx-y|")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
            // The source's completion is swallowed; its error is not.
            s.expect(s.hot("-a|").take(untilReplacedBy: s.hot("----x|"))).toBe("-a--x|")
            s.expect(s.hot("-a#").take(untilReplacedBy: s.hot("----x|"))).toBe("-a#")
            s.expect(s.hot("-a-b|").take(untilReplacedBy: s.hot("--#"))).toBe("-a#")
            let e2 = s.hot("-a-b-c|")
            s.expect(e2.take(untilReplacedBy: s.hot("------x")), unsubscribe: "^--!").toBe("-a-")
            s.expect(subscriptions: e2.subscriptions).toBe("^--!")
        }
    }

    @Test("contains is true at the first match, unsubscribing; false at an empty completion (ReactiveCocoa any:)")
    func contains() {
        marbles { s in
            let e1 = s.hot("-a-b-c-|")
            s.expect(e1.contains("b")).toBe("---(t|)", values: ["t": true])
            s.expect(subscriptions: e1.subscriptions).toBe("^--!")
            s.expect(s.hot("-a-c-|").contains(where: { $0 == "b" })).toBe("-----(f|)", values: ["f": false])
            s.expect(s.hot("-a-#").contains("b")).toBe("---#", values: [String: Bool]())
            s.expect(s.hot("-a-|").contains(where: { _ in throw TestError() })).toBe("-#", values: [String: Bool](), error: TestError())
        }
    }

    @Test("combinePrevious combines each value with the previous one, the first with the start")
    func combinePrevious() {
        marbles { s in
            let e1 = s.hot("-a-b-c-|")
            s.expect(e1.combinePrevious("s") { $0 + $1 }).toBe("-x-y-z-|", values: ["x": "sa", "y": "ab", "z": "bc"])
            s.expect(s.hot("-a-b-#").combinePrevious("s").map { $0.previous + $0.current }).toBe("-x-y-#", values: ["x": "sa", "y": "ab"])
            s.expect(s.hot("-a-|").combinePrevious("s") { _, _ -> String in throw TestError() }).toBe("-#", error: TestError())
        }
    }

    @Test("autoconnect connects at the first subscriber and stays connected (ReactiveCocoa replayLazily with a replaying subject)")
    func replayLazily() {
        marbles { s in
            let e1 = s.hot("-a-b-c--------d|")
            let replayed = e1.multicast(ReplaySubject(bufferSize: .max)).autoconnect()
            s.expect(s.cold("--x|").flatMap { _ in replayed }, unsubscribe: "^--!").toBe("---")
            s.expect(s.cold("-------x|").flatMap { _ in replayed }).toBe("-------(bc)---d|")
            s.expect(subscriptions: e1.subscriptions).toBe("--^------------!")
        }
    }

    @Test("combineLatest and zip of a collection take a result selector (RxSwift)")
    func collectionSelectors() {
        marbles { s in
            let sources = [s.hot("-a---b-|"), s.hot("--x---y|")]
            s.expect(Observable.combineLatest(sources) { $0.joined() }).toBe("--p--qr|", values: ["p": "ax", "q": "bx", "r": "by"])
            s.expect(Observable.zip(sources) { $0.joined() }).toBe("--p---q|", values: ["p": "ax", "q": "by"])
        }
    }
}

@Suite("firstValue and lastValue", .timeLimit(.minutes(1)))
struct FirstLastValueTests {
    @Test("firstValue returns the first value and unsubscribes; lastValue waits for completion")
    func values() async throws {
        let disposed = Locked(false)
        let first = try await Observable.of(1, 2, 3).concat(Observable.never()).do(onDispose: { disposed.withLock { $0 = true } })
            .firstValue()
        #expect(first == 1)
        #expect(disposed.withLock { $0 })
        #expect(try await Observable.of(1, 2, 3).lastValue() == 3)
        #expect(try await Observable<Int>.empty().firstValue(default: 7) == 7)
        #expect(try await Observable<Int>.empty().lastValue(default: 8) == 8)
    }

    @Test("an empty source throws noElements; an error is thrown as is")
    func failures() async {
        await #expect(throws: RxError.noElements) { try await Observable<Int>.empty().firstValue() }
        await #expect(throws: RxError.noElements) { try await Observable<Int>.empty().lastValue() }
        await #expect(throws: TestError()) { try await Observable<Int>.error(TestError()).lastValue() }
    }

    @Test("cancelling the waiting task unsubscribes, then throws CancellationError")
    func cancellation() async {
        let disposed = Locked(false)
        let (subscribed, signal) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await Observable<Int>.never()
                .do(onSubscribed: { signal.yield() }, onDispose: { disposed.withLock { $0 = true } })
                .firstValue()
        }
        // Cancel once the wait has really begun: a task cancelled before that never subscribes.
        for await _ in subscribed { break }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(disposed.withLock { $0 })
    }

    @Test("a task cancelled before it waits throws CancellationError without subscribing")
    func cancelledBeforeWaiting() async {
        let subscriptions = Locked(0)
        let task = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await Observable<Int>.never().do(onSubscribe: { subscriptions.withLock { $0 += 1 } }).firstValue()
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(subscriptions.withLock { $0 } == 0)
    }

    // A continuation resumed while its body runs resumes the task only after the body returns,
    // and the body ends the subscription: these two pin that order down.
    @Test("a cancellation that arrives while subscribing still unsubscribes before the task resumes")
    func cancellationDuringSubscribe() async {
        let order = Locked<[String]>([])
        let source = Observable<Int>.create { _ in
            withUnsafeCurrentTask { $0?.cancel() }
            return Disposables.create {
                usleep(20_000)  // a slow unsubscribe: a task resumed before it ends would record first
                order.withLock { $0.append("disposed") }
            }
        }
        // In a task of its own: the cancellation must not reach the test's task.
        let task = Task { try await source.lastValue() }
        do {
            _ = try await task.value
            Issue.record("lastValue returned in a cancelled task")
        } catch {
            #expect(error is CancellationError)
            order.withLock { $0.append("thrown") }
        }
        #expect(order.withLock { $0 } == ["disposed", "thrown"])
    }

    @Test("a source that emits while subscribing is unsubscribed before firstValue returns")
    func synchronousFirstValue() async throws {
        let order = Locked<[String]>([])
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            return Disposables.create {
                usleep(20_000)  // a slow unsubscribe: a task resumed before it ends would record first
                order.withLock { $0.append("disposed") }
            }
        }
        #expect(try await source.firstValue() == 1)
        order.withLock { $0.append("returned") }
        #expect(order.withLock { $0 } == ["disposed", "returned"])
    }
}
