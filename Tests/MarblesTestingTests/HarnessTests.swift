import MarblesTesting
import Testing
import XCTest

@Suite("Harness as a new user meets it")
struct HarnessTests {
    @Test("the README's matchers, values-only and observable-against-observable example passes")
    func readmeBeyondDiagrams() {
        let scheduler = TestScheduler()
        scheduler.run {
            let ids = scheduler.cold("-a-b|", values: ["a": 3, "b": 8])
            scheduler.expect(ids).toBe("-p-q|", values: ["p": ValueMatcher.of(Int.self, "odd") { $0 % 2 == 1 }, "q": .any])
            scheduler.expect(ids.map { Double($0) }).toBe("-x-y|", values: ["x": 3.01, "y": 7.99], areEqual: { abs($0 - $1) < 0.1 })
            scheduler.expect(ids).toEmit([3, 8], completing: true)
            scheduler.expect(ids.map { $0 * 2 }).toBeLike(ids.map { $0 + $0 })
        }
    }

    @Test("matchers, values-only and toBeLike fail with a readable message")
    func failuresOfTheNewAssertions() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let ids = scheduler.cold("-a-b|", values: ["a": 3, "b": 8])
            scheduler.expect(ids).toBe("-p-p|", values: ["p": ValueMatcher.of(Int.self, "odd") { $0 % 2 == 1 }])
            scheduler.expect(ids).toEmit([3, 9])
            scheduler.expect(ids).toBeLike(ids.delay(.milliseconds(1), scheduler: scheduler))
        }
        #expect(reporter.failures.count == 3)
        #expect(reporter.failures[0].message.contains("frame 3: expected next(p = odd), got next(8)"))
        #expect(reporter.failures[1].message.contains("expected: [\"3\", \"9\"] then completed"))
        #expect(reporter.failures[2].message.hasPrefix("timelines differ"))
    }

    @Test("a forgotten run fails at the toBe line")
    func forgottenRun() {
        let reporter = MarbleFailure.Collector()
        var line = 0
        do {
            let scheduler = TestScheduler(reporter: reporter)
            line = #line + 1
            scheduler.expect(scheduler.cold("-a-|")).toBe("-b-|")
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.location.line == line)
        #expect(reporter.failures.first?.message.contains("never checked") == true)
    }

    @Test("values that print alike but differ are shown with their types")
    func collidingDescriptions() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            scheduler.expect(scheduler.cold("-a-b|", values: ["a": 1, "b": 2])).toBe("-1-2|")
        }
        let message = reporter.failures.first?.message ?? ""
        #expect(message.contains("expected next(\"1\": String), got next(1: Int)"), "\(message)")
    }

    @Test("a syntax error in an expected diagram is one failure, not two")
    func noKnockOnFailure() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run { scheduler.expect(scheduler.cold("-a|")).toBe("-(a|") }
        #expect(reporter.failures.count == 1)
    }

    @Test("many mismatches list twenty, then say how many more")
    func boundedListing() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            scheduler.expect(scheduler.cold(String(repeating: "a", count: 100) + "|")).toBe(String(repeating: "b", count: 100) + "|")
        }
        let message = reporter.failures.first?.message ?? ""
        #expect(message.contains("… and 80 more mismatches"))
        #expect(message.split(separator: "\n").allSatisfy { $0.count < 200 })
    }
}

/// The same assertions under XCTest.
final class HarnessXCTests: XCTestCase {
    func testMatchersValuesOnlyAndToBeLike() {
        let scheduler = TestScheduler()
        scheduler.run {
            let ids = scheduler.cold("-a-b|", values: ["a": 3, "b": 8])
            scheduler.expect(ids).toBe("-p-q|", values: ["p": ValueMatcher.any, "q": ValueMatcher.of(Int.self, "even") { $0 % 2 == 0 }])
            scheduler.expect(ids).toEmit([3, 8])
            scheduler.expect(ids.map { $0 * 2 }).toBeLike(ids.map { $0 + $0 })
        }
    }
}

@Suite("Leak check at the end of a run")
struct LeakCheckTests {
    /// An operator that forgets to dispose its source.
    static func leaky<T>(_ source: Observable<T>) -> Observable<T> {
        Observable.create { observer in
            _ = source.subscribe(observer)
            return Disposables.create()
        }
    }

    @Test("an operator that keeps its source subscribed fails at the run, naming the observable")
    func operatorLeak() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let line = #line + 1
        scheduler.run {
            let source = scheduler.hot("-a-b-c-")
            scheduler.expect(Self.leaky(source.asObservable()), unsubscribe: "^--!").toBe("-a-")
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.location.line == line)
        let message = reporter.failures.first?.message ?? ""
        #expect(message.hasPrefix("1 subscription is still open after the run"), "\(message)")
        #expect(message.contains(#"hot("-a-b-c") subscribed at frame 0"#), "\(message)")
    }

    @Test("a hot input without '|' subscribed by the test itself fails with the fixes: end the input, or dispose at a frame")
    func leakMessageSuggestsFixes() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let input = scheduler.hot("-a-b-")
            _ = input.subscribe { _ in }
        }
        let message = reporter.failures.map(\.message).joined()
        #expect(message.hasPrefix("1 subscription is still open after the run"), "\(message)")
        #expect(message.contains(#"end the input, so that its subscriptions end with it: hot("-a-b-|")"#), "\(message)")
        #expect(message.contains("dispose of the subscription at a frame"), "\(message)")
        // Both fixes hold.
        for fixed in [
            { (s: TestScheduler) in _ = s.hot("-a-b-|").subscribe { _ in } },
            { (s: TestScheduler) in
                let subscription = s.hot("-a-b-").subscribe { _ in }
                _ = s.schedule(after: s.frame * 5) { subscription.dispose() }
            },
        ] {
            let quiet = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: quiet)
            scheduler.run { fixed(scheduler) }
            #expect(quiet.failures.isEmpty, "\(quiet.failures.map(\.message))")
        }
    }

    @Test("a subscription the test expects to stay open is no leak (RxJS share({ resetOnRefCountZero: false }))")
    func expectedOpenIsNoLeak() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let source = scheduler.hot("--1-2---3-4--5-")
            let shared = source.share(resetOnRefCountZero: false)
            scheduler.expect(shared, unsubscribe: "^------!").toBe("--1-2--")
            scheduler.expect(shared, unsubscribe: "---------^---!").toBe("----------4--")
            scheduler.expect(subscriptions: source.subscriptions).toBe("^")
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }

    @Test("without that expectation, or with one that does not match, the open subscription is still a leak")
    func unexpectedOpenIsALeak() {
        for expectation in [nil, "-^"] as [String?] {
            let reporter = MarbleFailure.Collector()
            let scheduler = TestScheduler(reporter: reporter)
            let other = scheduler.run { () -> TestScheduler.ColdObservable<String> in
                let source = scheduler.hot("--1-2---3-4--5-")
                let other = scheduler.cold("-x-")
                _ = other.subscribe { _ in }
                scheduler.expect(source.share(resetOnRefCountZero: false), unsubscribe: "^--!").toBe("--1")
                if let expectation { scheduler.expect(subscriptions: source.subscriptions).toBe(expectation) }
                return other
            }
            let leaks = reporter.failures.map(\.message).filter { $0.contains("still open after the run") }
            #expect(leaks.count == 1, "\(reporter.failures.map(\.message))")
            // The source (hot) and the test's own dropped subscription (cold) are both reported.
            #expect(leaks.first?.hasPrefix("2 subscriptions are still open") == true, "\(leaks)")
            _ = other
        }
    }

    @Test(
        "an open subscription expected on one observable does not excuse another's (given the log or the observable)",
        arguments: [false, true])
    func expectedOpenIsPerObservable(passingTheObservable: Bool) {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let kept = scheduler.hot("--1-2-")
            let leaked = scheduler.hot("--1-2-3-")
            scheduler.expect(kept.share(resetOnRefCountZero: false), unsubscribe: "^--!").toBe("--1")
            scheduler.expect(Self.leaky(leaked.asObservable()), unsubscribe: "^--!").toBe("--1")
            if passingTheObservable {
                scheduler.expect(subscriptions: kept).toBe("^")
            } else {
                scheduler.expect(subscriptions: kept.subscriptions).toBe("^")
            }
        }
        let message = reporter.failures.map(\.message).joined()
        #expect(message.hasPrefix("1 subscription is still open after the run"), "\(message)")
        #expect(message.contains("hot(\"--1-2-3\")"), "\(message)")
    }

    @Test("expect(subscriptions:) given a cold observable compares its log")
    func subscriptionsOfColdObservable() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let source = scheduler.cold("--a--|")
            scheduler.expect(source.map { $0 }).toBe("--a--|")
            scheduler.expect(subscriptions: source).toBe("^----!")
            scheduler.expect(subscriptions: source).toBe("^---!")
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains("subscription") == true)
    }

    @Test("a subscription the test drops without disposing is reported too")
    func droppedSubscription() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let source = scheduler.cold("--a--")
            _ = source.subscribe { _ in }
            scheduler.expect(source).toBe("--a--")
        }
        #expect(reporter.failures.map(\.message).first?.contains(#"cold("--a") subscribed at frame 0"#) == true)
    }

    @Test("endless sources under expect, inner observables and recordings are released by the run itself")
    func harnessSubscriptionsReleased() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let source = scheduler.hot("-a-b-c-")
            let inner = scheduler.cold("-x-y-")
            scheduler.expect(source).toBe("-a-b-c-")
            scheduler.expect(scheduler.cold("-a|").map { _ in inner }).toBe("-i|", values: ["i": scheduler.cold("-x-y-")])
            _ = scheduler.record(source.map { $0 + "!" })
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures)")
    }
}
