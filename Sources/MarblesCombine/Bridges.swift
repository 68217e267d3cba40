#if canImport(Combine) || OpenCombine
    public import MarbleCore

    /// Delivers an observable's events to a Combine subscriber within its demand: values that
    /// arrive while the demand is used up wait in order and go out as it is raised. Cancelling
    /// unsubscribes from the observable.
    final class DemandSubscription<Output, Failure: Error>: Subscription, @unchecked Sendable {
        private let lock = Lock()
        private var subscriber: AnySubscriber<Output, Failure>?
        private var demand = Subscribers.Demand.none
        private var waiting = FIFOQueue<Output>()
        private var completion: Subscribers.Completion<Failure>?
        private var delivering = false
        private let upstream = SingleAssignmentDisposable()
        private let onRequest: (Subscribers.Demand) -> Void
        /// Hot sources drop a value that arrives while no demand is outstanding (as
        /// `PassthroughSubject` does); cold ones hold it until demand comes.
        private let dropsUnrequested: Bool

        init(
            _ subscriber: AnySubscriber<Output, Failure>, dropsUnrequested: Bool = false,
            onRequest: @escaping (Subscribers.Demand) -> Void
        ) {
            self.subscriber = subscriber
            self.dropsUnrequested = dropsUnrequested
            self.onRequest = onRequest
        }

        /// Subscribes to `source`; `failure` turns its error into the publisher's (nil: a
        /// `Never`-failing publisher met an error, reported by the caller).
        func start(_ source: Observable<Output>, failure: @escaping (any Error) -> Failure?) {
            upstream.set(
                source.subscribe { [self] event in
                    lock.withLock {
                        switch event {
                        case .next(let value):
                            if !dropsUnrequested || demand > .max(waiting.count) { waiting.append(value) }
                        case .error(let error):
                            if let mapped = failure(error) { completion = .failure(mapped) } else { completion = .finished }
                        case .completed: completion = .finished
                        }
                    }
                    deliver()
                })
        }

        func request(_ demand: Subscribers.Demand) {
            onRequest(demand)
            lock.withLock { self.demand += demand }
            deliver()
        }

        func cancel() {
            lock.withLock {
                subscriber = nil
                waiting = FIFOQueue()
            }
            upstream.dispose()
        }

        /// Sends what the demand allows, one call at a time, never under the lock.
        private func deliver() {
            lock.lock()
            guard !delivering else { return lock.unlock() }
            delivering = true
            while let subscriber {
                if demand > .none, let value = waiting.popFirst() {
                    demand -= 1
                    lock.unlock()
                    let more = subscriber.receive(value)
                    lock.lock()
                    demand += more
                } else if waiting.isEmpty, let completion {
                    self.subscriber = nil
                    lock.unlock()
                    subscriber.receive(completion: completion)
                    upstream.dispose()
                    lock.lock()
                } else {
                    break
                }
            }
            delivering = false
            lock.unlock()
        }
    }

    /// An observable as a Combine publisher (failing with `any Error`); see `publisher`.
    public struct ObservablePublisher<Output>: Publisher {
        public typealias Failure = any Error
        let source: Observable<Output>

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            let subscription = DemandSubscription<Output, any Error>(AnySubscriber(subscriber), onRequest: { _ in })
            subscriber.receive(subscription: subscription)
            subscription.start(source) { $0 }
        }
    }

    extension ObservableType {
        /// This observable as a Combine publisher: values within the subscriber's demand (later
        /// ones wait, in order), its error as the failure; cancelling unsubscribes.
        public var publisher: ObservablePublisher<Element> { ObservablePublisher(source: asObservable()) }
    }

    extension Publisher {
        /// This publisher as an observable: subscribing requests unlimited demand, the failure
        /// becomes the error, unsubscribing cancels.
        public func asObservable() -> Observable<Output> { asObservable(demand: .unlimited) }

        /// This publisher as an observable, through a subscriber that requests `demand` once and
        /// never more: for backpressure tests.
        public func asObservable(demand: Subscribers.Demand) -> Observable<Output> {
            let publisher = self
            return Observable.create { observer in
                let subscriber = FixedDemandSubscriber<Output, Failure>(demand: demand, observer: observer)
                publisher.subscribe(subscriber)
                return Disposables.create { subscriber.cancel() }
            }
        }
    }

    /// Requests a fixed demand at subscription, forwards what arrives to an observer.
    final class FixedDemandSubscriber<Input, Failure: Error>: Subscriber, @unchecked Sendable {
        let demand: Subscribers.Demand
        let observer: Observer<Input>
        private let subscription = Locked<(any Subscription)?>(nil)

        init(demand: Subscribers.Demand, observer: Observer<Input>) {
            self.demand = demand
            self.observer = observer
        }

        func receive(subscription: any Subscription) {
            self.subscription.withLock { $0 = subscription }
            subscription.request(demand)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            observer.onNext(input)
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            // A finished subscription is not cancelled afterwards (as `sink` releases it): a cancel
            // after completion reaches `share()`'s autoconnect as a subscriber leaving, which then
            // reconnects upstream for the next subscriber.
            subscription.withLock { $0 = nil }
            switch completion {
            case .finished: observer.onCompleted()
            case .failure(let error): observer.onError(error)
            }
        }

        func cancel() { subscription.withLock { $0 }?.cancel() }
    }
#endif
