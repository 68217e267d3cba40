/// One checked expectation: what went in, what was expected, what came out. Handed to
/// ``TestScheduler/Listener/expectationChecked`` (MarblesTesting writes diagram specs from it).
@usableFromInline package struct ExpectationOutcome {
    /// A test observable made before the expectation.
    public struct Input {
        /// Hot or cold.
        public var kind: MarbleDiagram.Kind { source.kind }
        /// Its messages, erased; times relative to its creation (hot: to its `^`).
        public var messages: [Recorded<Event<RecordedValue>>] { source.erasedMessages }
        /// Where the test made it and the name it gave it.
        package var declaration: TestObservableDeclaration? { source.declaration }
        /// Its subscriptions, in the scheduler's time.
        package var subscriptions: [SubscriptionLog] { Array(source.subscriptionLogs) }
        /// The observable's identity, as ``SubscriptionLog``'s `owner` and a value that is this
        /// observable (an inner of another input) name it.
        package var owner: UInt { UInt(bitPattern: ObjectIdentifier(source)) }
        /// The test observable a value is (an inner of another input), by its ``owner``; `nil`
        /// for any other value.
        package static func owner(of value: RecordedValue) -> UInt? {
            guard case .plain(let plain) = value, let observable = plain as? any TestObservableMessages else { return nil }
            return UInt(bitPattern: ObjectIdentifier(observable))
        }
        // Erased when asked for: most runs never look.
        let source: any TestObservableMessages

        init(_ source: any TestObservableMessages) { self.source = source }
    }

    /// The `toBe` call site.
    public var location: MarbleFailure.Location
    /// The name of the test that made the expectation, when known.
    public var testName: String?
    /// The test observables made before the expectation, in creation order.
    public var inputs: [Input]
    /// The expected events (empty for a subscription expectation).
    public var expected: [Recorded<Event<RecordedValue>>]
    /// The recorded events (empty for a subscription expectation).
    public var actual: [Recorded<Event<RecordedValue>>]
    /// The differences; empty when the expectation held.
    public var mismatches: [MarbleMismatch]
    /// For a subscription expectation: the expected subscriptions.
    public var expectedSubscriptions: [SubscriptionLog]?
    /// For a subscription expectation: the subscriptions seen.
    public var actualSubscriptions: [SubscriptionLog]?
    /// For a subscription expectation: the test observable whose log it checked (its
    /// ``Input/owner``), when known.
    package var subscriptionOwner: UInt?
    /// The virtual time of one frame.
    public var frame: Duration
    /// The test's `values:` keys for the expected diagram, by key (what the comparison names
    /// values by, and what a diagram of the test writes).
    package var keys: [(key: String, value: RecordedValue)] = []

    /// Whether the expectation held.
    public var passed: Bool { mismatches.isEmpty && expectedSubscriptions == actualSubscriptions }

    /// The outcome of a timeline expectation.
    public init(
        location: MarbleFailure.Location, testName: String? = nil, inputs: [Input], expected: [Recorded<Event<RecordedValue>>],
        actual: [Recorded<Event<RecordedValue>>], mismatches: [MarbleMismatch], frame: Duration
    ) {
        self.location = location
        self.testName = testName
        self.inputs = inputs
        self.expected = expected
        self.actual = actual
        self.mismatches = mismatches
        self.frame = frame
    }

    /// The outcome of a subscription expectation.
    public init(
        location: MarbleFailure.Location, testName: String? = nil, inputs: [Input], expectedSubscriptions: [SubscriptionLog],
        actualSubscriptions: [SubscriptionLog], frame: Duration
    ) {
        self.location = location
        self.testName = testName
        self.inputs = inputs
        self.expected = []
        self.actual = []
        self.mismatches = []
        self.expectedSubscriptions = expectedSubscriptions
        self.actualSubscriptions = actualSubscriptions
        self.frame = frame
    }
}
