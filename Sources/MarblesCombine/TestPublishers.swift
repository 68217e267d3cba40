#if canImport(Combine) || OpenCombine
    internal import MarbleCore
    public import Marbles

    /// One `request(_:)` a subscriber made of a test publisher.
    public struct DemandRequest: Equatable, Sendable, CustomStringConvertible {
        /// When, counted from the scheduler's start.
        public var time: Duration
        /// How much.
        public var demand: Subscribers.Demand

        /// A request of `demand` at `time`.
        public init(time: Duration, demand: Subscribers.Demand) {
            self.time = time
            self.demand = demand
        }

        public var description: String { "\(demand) at \(time)" }
    }

    /// A publisher that plays a marble diagram on a `TestScheduler`: cold (from each
    /// subscription) or hot (from the scheduler's start). It logs subscriptions (`^`/`!`, to
    /// compare with `expect(subscriptions:)`) and
    /// every demand its subscribers request (``demands``).
    ///
    /// Demand: a cold publisher replays its diagram to each subscriber on demand, so a value that
    /// arrives while the subscriber's demand is used up waits, in order, until it requests more. A
    /// hot publisher is a live source, like `PassthroughSubject`: a value it sends while a
    /// subscriber has no demand outstanding is dropped for that subscriber (and never holds back the
    /// completion behind it).
    public final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
        private let source: Observable<Output>
        private let logs: () -> [SubscriptionLog]
        private let scheduler: TestScheduler
        private let failure: (any Error) -> Failure?
        private let isHot: Bool
        private let requests = Locked<[DemandRequest]>([])

        init(
            source: Observable<Output>, logs: @escaping () -> [SubscriptionLog], scheduler: TestScheduler, isHot: Bool,
            failure: @escaping (any Error) -> Failure?
        ) {
            self.source = source
            self.logs = logs
            self.scheduler = scheduler
            self.isHot = isHot
            self.failure = failure
        }

        /// When each subscription started and ended, in frames of the scheduler.
        public var subscriptions: [SubscriptionLog] { logs() }

        /// Every demand requested of this publisher, in order.
        public var demands: [DemandRequest] { requests.withLock { $0 } }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let scheduler = self.scheduler
            let subscription = DemandSubscription<Output, Failure>(AnySubscriber(subscriber), dropsUnrequested: isHot) {
                [requests] demand in
                requests.withLock { $0.append(DemandRequest(time: scheduler.now, demand: demand)) }
            }
            subscriber.receive(subscription: subscription)
            subscription.start(source, failure: failure)
        }
    }

    extension TestScheduler {
        /// A cold publisher: `diagram` plays from each subscription; `#` fails with `error`.
        public func coldPublisher<Output, Failure: Error>(
            _ diagram: String, values: [String: Output], error: Failure,
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<Output, Failure> {
            let cold = self.cold(diagram, values: values, error: error, fileID: fileID, filePath: filePath, line: line, column: column)
            return TestPublisher(
                source: cold.asObservable(), logs: { cold.subscriptions }, scheduler: self, isHot: false, failure: { $0 as? Failure })
        }

        /// A cold publisher that never fails: `diagram` plays from each subscription.
        public func coldPublisher<Output>(
            _ diagram: String, values: [String: Output],
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<Output, Never> {
            let cold = self.cold(diagram, values: values, fileID: fileID, filePath: filePath, line: line, column: column)
            return TestPublisher(
                source: cold.asObservable(), logs: { cold.subscriptions }, scheduler: self, isHot: false, failure: { _ in nil })
        }

        /// A cold publisher of the diagram's labels, never failing.
        public func coldPublisher(
            _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<String, Never> {
            coldPublisher(diagram, values: [String: String](), fileID: fileID, filePath: filePath, line: line, column: column)
        }

        /// A hot publisher: `diagram` plays from the scheduler's start (`^` marks it) whoever
        /// subscribes; `#` fails with `error`. A value sent while a subscriber has no demand
        /// outstanding is dropped for it, as `PassthroughSubject` drops it.
        public func hotPublisher<Output, Failure: Error>(
            _ diagram: String, values: [String: Output], error: Failure,
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<Output, Failure> {
            let hot = self.hot(diagram, values: values, error: error, fileID: fileID, filePath: filePath, line: line, column: column)
            return TestPublisher(
                source: hot.asObservable(), logs: { hot.subscriptions }, scheduler: self, isHot: true, failure: { $0 as? Failure })
        }

        /// A hot publisher that never fails.
        public func hotPublisher<Output>(
            _ diagram: String, values: [String: Output],
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<Output, Never> {
            let hot = self.hot(diagram, values: values, fileID: fileID, filePath: filePath, line: line, column: column)
            return TestPublisher(
                source: hot.asObservable(), logs: { hot.subscriptions }, scheduler: self, isHot: true, failure: { _ in nil })
        }

        /// A hot publisher of the diagram's labels, never failing.
        public func hotPublisher(
            _ diagram: String, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> TestPublisher<String, Never> {
            hotPublisher(diagram, values: [String: String](), fileID: fileID, filePath: filePath, line: line, column: column)
        }

        /// Subscribes to `publisher` at the subscription diagram's `^` (default: now) with
        /// unlimited demand, or with `demand` requested once, unsubscribes at its `!`, and records
        /// its values and completion (a failure is `#`); follow with `toBe`, as for observables.
        // Disfavored: a publisher of publishers takes the overload below, which records inner timelines.
        @_disfavoredOverload
        public func expect<P: Publisher>(
            _ publisher: P, demand: Subscribers.Demand = .unlimited, unsubscribe: String? = nil,
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> MarbleExpectation<P.Output> {
            expect(
                publisher.asObservable(demand: demand), unsubscribe: unsubscribe,
                at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        }

        /// A publisher of publishers (`map` to a publisher, before `switchToLatest`): each inner
        /// publisher is recorded as an inner timeline, to compare with cold diagrams as values.
        public func expect<P: Publisher>(
            _ publisher: P, unsubscribe: String? = nil,
            fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) -> MarbleExpectation<Observable<P.Output.Output>> where P.Output: Publisher {
            let observable = publisher.map { $0.asObservable() }.asObservable()
            return expect(
                observable, unsubscribe: unsubscribe,
                at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column)
            )
        }
    }
#endif
