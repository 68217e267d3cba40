import MarbleCore
import Marbles
import Testing

/// A cold observable's subscriptions (each one object: its replay and its log entry), the same
/// diagram made again (parsed once, its observables apart), and inner observables that operators
/// subscribe without an `Observable` in between.
@Suite("Test observables' subscriptions")
struct TestObservableSubscriptionTests {
    @Test("a cold observable subscribed three times logs each subscription and unsubscription in order")
    func threeSubscriptionsAreLoggedInOrder() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        var seen: [String] = []
        let cold = scheduler.cold("-a-b-c|")
        scheduler.run {
            let first = cold.subscribe(onNext: { seen.append("1" + $0) })
            _ = scheduler.schedule(after: .milliseconds(2)) { _ = cold.subscribe(onNext: { seen.append("2" + $0) }) }
            _ = scheduler.schedule(after: .milliseconds(3)) {
                first.dispose()
                first.dispose()  // a second dispose changes nothing
                _ = cold.subscribe(onNext: { seen.append("3" + $0) })
            }
            scheduler.expect(subscriptions: cold.subscriptions).toBe(["^--!", "--^-----!", "---^-----!"])
        }
        #expect(cold.subscriptions.count == 3)
        #expect(cold.subscriptions.map(\.subscribed) == [.zero, .milliseconds(2), .milliseconds(3)])
        // At frame 3, the first subscription's b (its numbers taken at frame 0) comes before the
        // dispose scheduled after it, and that before the second's a (numbers taken at frame 2).
        #expect(seen == ["1a", "1b", "2a", "3a", "2b", "3b", "2c", "3c"], "\(seen)")
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }

    @Test("a cold observable never subscribed has no subscriptions, and its leak check passes")
    func neverSubscribedHasNoLog() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let cold = scheduler.cold("-a|")
        scheduler.run { scheduler.expect(subscriptions: cold.subscriptions).toBe([String]()) }
        #expect(cold.subscriptions.isEmpty)
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }

    @Test("a subscription left open is named by the leak check, whichever of several it is")
    func theOpenOneOfSeveralIsReported() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let hot = scheduler.hot("-a-b-c-")
            _ = hot.subscribe(onNext: { _ in }).dispose()
            _ = scheduler.schedule(after: .milliseconds(2)) { _ = hot.subscribe(onNext: { _ in }) }
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains("subscribed at frame 2") == true, "\(reporter.failures.map(\.message))")
    }

    @Test("the same diagram made again gives observables with their own subscriptions")
    func sameDiagramTwiceKeepsObservablesApart() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let outer = scheduler.cold("a--b|")
            var inners: [TestScheduler.ColdObservable<String>] = []
            let flattened = outer.flatMapLatest { _ -> TestScheduler.ColdObservable<String> in
                let inner = scheduler.cold("-x-y|")
                inners.append(inner)
                return inner
            }
            scheduler.expect(flattened).toBe("-x--x-y|")
            _ = scheduler.schedule(after: .milliseconds(10)) {
                #expect(inners.count == 2)
                #expect(inners.count == 2 && inners[0] !== inners[1])
                #expect(inners.map(\.subscriptions.count) == [1, 1])
                #expect(inners.first?.subscriptions.first?.unsubscribed == .milliseconds(3))
                #expect(inners.last?.subscriptions.first?.unsubscribed == .milliseconds(7))
            }
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }

    @Test("the same diagram with another error carries that error, not the one made before")
    func sameDiagramWithAnotherErrorKeepsItsError() {
        struct Boom: Error, Equatable {}
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        let plain = scheduler.cold("-a-#")
        let custom = scheduler.cold("-a-#", error: Boom())
        let again = scheduler.cold("-a-#")
        #expect(plain.messages.last?.value.error is MarbleError)
        #expect(custom.messages.last?.value.error is Boom)
        #expect(again.messages.last?.value.error is MarbleError)
        let hotCustom = scheduler.hot("-a-#", error: Boom())
        #expect(hotCustom.messages.last?.value.error is Boom)
        scheduler.run {}
        #expect(reporter.failures.isEmpty)
    }

    @Test("a malformed diagram made twice is reported twice")
    func malformedDiagramIsReportedEachTime() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        _ = scheduler.cold("-a-(b")
        _ = scheduler.cold("-a-(b")
        scheduler.run {}
        #expect(reporter.failures.count == 2, "\(reporter.failures.map(\.message))")
    }

    /// An observable type of the test's own: only `asObservable()`.
    struct Wrapped: ObservableType {
        let inner: Observable<String>
        func asObservable() -> Observable<String> { inner }
    }

    @Test("flatMap and flatMapLatest subscribe inner observables of any observable type")
    func innerObservablesOfAnyType() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        scheduler.run {
            let outer = scheduler.cold("a--b|")
            let inner = scheduler.cold("-x-y|")
            scheduler.expect(outer.flatMap { _ in Wrapped(inner: inner.asObservable()) }).toBe("-x-yx-y|")
            scheduler.expect(outer.flatMapLatest { _ in Wrapped(inner: inner.asObservable()) }).toBe("-x--x-y|")
            let subject = PublishSubject<String>()
            scheduler.expect(outer.flatMap { _ in subject }, unsubscribe: "^----!").toBe("-----")
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }
}
