import MarbleRender
import Testing

@Suite("Subscription windows on inputs")
struct SubscriptionWindowTests {
    @Test("a resubscribed input shows each subscription, one after the other on one line")
    func retryShowsEachSubscription() throws {
        let model = try model("input: --a--#\noperator: retry(1)")
        #expect(model.inputs[0].subscriptions == [SubscriptionWindow(start: 0, end: 5), SubscriptionWindow(start: 5, end: 10)])
        let list = DiagramLayout().layout(model)
        #expect(list.summary.contains("Subscribed from frame 0 to 5, then from frame 5 to 10."))
        let brackets = list.items.filter { if case .line(_, _, .line, 1.5, false, 0.55) = $0 { true } else { false } }
        #expect(brackets.count == 6)  // two windows: a line and two end ticks each
    }

    @Test("an input dropped before it ends shows where it was unsubscribed")
    func takeUntilShowsTheEarlyEnd() throws {
        let model = try model("input source: -a-b-c-d-|\ninput notifier: ----z|\noperator: takeUntil")
        #expect(model.inputs[0].subscriptions == [SubscriptionWindow(start: 0, end: 4)])
    }

    @Test("an input subscribed once for its whole life shows no window")
    func plainSubscriptionShowsNothing() throws {
        let model = try model("input: -a-b|\noperator: map(x)")
        #expect(model.inputs[0].subscriptions.isEmpty)
        #expect(!DiagramLayout().layout(model).summary.contains("Subscribed"))
    }
}
