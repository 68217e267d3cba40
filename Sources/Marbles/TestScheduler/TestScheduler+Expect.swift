extension TestScheduler {
    /// Subscribes to `observable` at the subscription diagram's `^` (default: now) and
    /// unsubscribes at its `!` (default: never); follow with `toBe`.
    ///
    /// When ``run(fileID:filePath:line:column:_:)`` ends, this subscription is disposed and every
    /// test observable must then be unsubscribed: an operator that keeps its source subscribed
    /// after its subscriber left (a leak) fails the test.
    // Inlinable (not left to cross-module optimization) so that the recording is specialized
    // for the test's element type: unspecialized, each event looks generic metadata up.
    @inlinable
    public func expect<O: ObservableType>(
        _ observable: O, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> MarbleExpectation<O.Element> {
        expect(
            observable, unsubscribe: unsubscribe, at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
        )
    }

    @inlinable
    package func expect<O: ObservableType>(_ observable: O, unsubscribe: String? = nil, at location: MarbleFailure.Location)
        -> MarbleExpectation<O.Element>
    {
        let expectation = MarbleExpectation<O.Element>(scheduler: self, origin: now, window: unsubscribe)
        let (subscribeAt, unsubscribeAt) = subscriptionTimes(unsubscribe, location: location)
        let source = observable.asObservable()
        // The observer is the subscription, made now: no holder for it until it subscribes.
        let observer = Observer<O.Element> { event in expectation.record(event) }
        state.harnessSubscriptions.append(observer)
        // `enqueue`: the harness never cancels these, so no disposable for each.
        _ = virtual.enqueue(at: now + subscribeAt) { source.run(observer) }
        if let unsubscribeAt {
            _ = virtual.enqueue(at: now + unsubscribeAt) { observer.dispose() }
        }
        return expectation
    }

    /// The `^` (default: frame 0) and `!` of an expectation's subscription diagram, relative to
    /// now; a malformed diagram is reported at the expectation and read as "subscribe now".
    @usableFromInline
    func subscriptionTimes(_ diagram: String?, location: MarbleFailure.Location) -> (subscribe: Duration, unsubscribe: Duration?) {
        guard let diagram else { return (.zero, nil) }
        do {
            let parsed = try parser.parseSubscription(diagram)
            return (parsed.subscribe ?? .zero, parsed.unsubscribe)
        } catch {
            report(error.description, at: location)
            return (.zero, nil)
        }
    }

    /// Erases an event; an observable value is subscribed at once and recorded as an inner
    /// timeline relative to its emission.
    @usableFromInline
    func erase<Value>(_ event: Event<Value>) -> Event<RecordedValue> {
        event.map { value in
            guard let inner = value as? any ObservableType else { return .plain(value) }
            return .inner(recordInner(inner))
        }
    }

    private func recordInner<O: ObservableType>(_ inner: O) -> RecordedValue.InnerTimeline {
        let timeline = RecordedValue.InnerTimeline()
        let start = now
        let subscription = inner.asObservable().subscribe { [unowned self] event in
            timeline.events.append(Recorded(time: self.now - start, value: self.erase(event)))
        }
        state.harnessSubscriptions.append(subscription)
        return timeline
    }

    /// Compares subscription logs with diagrams when the run ends. The logs are read then, not
    /// now: pass the test observable's `subscriptions` directly.
    ///
    /// Passing the observable itself (`expect(subscriptions: input)`) reads the same, and needs
    /// no such care: a diagram without `!` that matches marks that observable's subscription as
    /// expected to stay open (here, the observable whose `subscriptions` the argument read).
    public func expect(subscriptions: @autoclosure @escaping () -> [SubscriptionLog]) -> TestScheduler.SubscriptionExpectation {
        TestScheduler.SubscriptionExpectation(scheduler: self, origin: now, owner: nil, logs: subscriptions)
    }

    /// Compares the subscriptions of a cold test observable with diagrams when the run ends:
    /// `scheduler.expect(subscriptions: input).toBe("^---!")`.
    public func expect<Element>(subscriptions observable: ColdObservable<Element>) -> TestScheduler.SubscriptionExpectation {
        TestScheduler.SubscriptionExpectation(scheduler: self, origin: now, owner: observable) { Array(observable.subscriptionLogs) }
    }

    /// Compares the subscriptions of a hot test observable with diagrams when the run ends:
    /// `scheduler.expect(subscriptions: input).toBe("^---!")`.
    public func expect<Element>(subscriptions observable: HotObservable<Element>) -> TestScheduler.SubscriptionExpectation {
        TestScheduler.SubscriptionExpectation(scheduler: self, origin: now, owner: observable) { Array(observable.subscriptionLogs) }
    }

    /// Subscribes to `observable` now and records its events, for custom checks after a flush.
    public func record<O: ObservableType>(_ observable: O) -> TestScheduler.Recording<O.Element> {
        let recording = TestScheduler.Recording<O.Element>()
        let origin = now
        // Weak: a recording the test drops stops collecting, and its subscription ends with the run.
        let subscription = underStepLimit {
            observable.asObservable().subscribe { [unowned self, weak recording] event in
                recording?.events.append(Recorded(time: self.now - origin, value: event))
            }
        }
        recording.subscription = subscription
        state.harnessSubscriptions.append(subscription)
        return recording
    }

    /// Queues a check for the end of the run; `location` is where it is reported if the run
    /// never comes.
    func register(
        at location: MarbleFailure.Location, isReady: @escaping () -> Bool = { true }, window: (any CheckWindow)? = nil,
        _ check: @escaping (TestScheduler) -> Void
    ) {
        state.checks.append(PendingCheck(location: location, isReady: isReady, window: window, check: check))
    }
}
