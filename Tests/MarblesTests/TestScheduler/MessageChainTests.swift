import MarbleCore
import Marbles
import Testing

@Suite("Test observables' messages, replayed as a chain")
struct MessageChainTests {
    @Test("a later message still runs before an action scheduled after the subscription for the same frame")
    func sameFrameOrderIsSubscriptionOrder() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(reporter: reporter)
        var order: [String] = []
        scheduler.run {
            let cold = scheduler.cold("-a--b|")
            _ = cold.subscribe(onNext: { order.append($0) })
            // Scheduled after the subscription, for b's frame: b's number was taken first, though
            // b enters the queue only when a runs.
            _ = scheduler.schedule(after: .milliseconds(4)) { order.append("x") }
        }
        #expect(order == ["a", "b", "x"], "\(order)")
        #expect(reporter.failures.isEmpty, "\(reporter.failures.map(\.message))")
    }

    @Test("unsubscribing in the middle of a chain sends nothing more, at the same frame or later")
    func unsubscribeStopsTheChain() {
        let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
        var seen: [String] = []
        scheduler.run {
            let cold = scheduler.cold("-a(bc)-d|")
            let subscription = cold.subscribe(onNext: { value in
                seen.append(value)
            })
            _ = scheduler.schedule(after: .milliseconds(2)) { subscription.dispose() }
            scheduler.expect(subscriptions: cold.subscriptions).toBe("^-!")
        }
        // The group at frame 2 was scheduled before the dispose, so it is delivered first.
        #expect(seen == ["a", "b", "c"], "\(seen)")
    }
}
