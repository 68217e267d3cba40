public import MarbleCore
import Observation

@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
extension TestScheduler {
    /// Records `value()` now and each time it changes, through Observation: for `@Observable`
    /// models (`scheduler.expect(observing: { model.results })`); follow with `toBe`. A change
    /// is recorded at the virtual time it happens, after the work already due then; several
    /// changes in one step are recorded once, with the value they leave.
    ///
    /// ```swift
    /// @MainActor @Test func search() {
    ///     let scheduler = TestScheduler(frame: .milliseconds(100))
    ///     scheduler.run {
    ///         let model = SearchModel(api: .stub)
    ///         let results = scheduler.expect(observing: { model.results })
    ///         scheduler.schedule(after: .milliseconds(100)) { model.queryChanged("swift") }
    ///         results.toBe("e---r", values: ["e": [], "r": ["SWIFT"]])
    ///     }
    /// }
    /// ```
    public func expect<Value>(
        observing value: @escaping () -> Value, unsubscribe: String? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) -> MarbleExpectation<Value> {
        let expectation = expect(
            observations(of: value), unsubscribe: unsubscribe,
            at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        // Each change Observation reports is recorded: one value means it reported none.
        expectation.failureNote = { actual in
            guard actual.filter({ if case .next = $0.value { true } else { false } }).count == 1 else { return nil }
            return """
                expect(observing:) recorded only the value at subscription: Observation reported no change of \
                anything the closure reads. Is the model @Observable (with `import Observation`: with only \
                `import MarblesTesting`, `@Observable` names MarbleCore's Observable), and does the closure read \
                the model's stored properties, not a copy taken before?
                """
        }
        return expectation
    }

    /// An observable of `value()`: its value when subscribed, then each new value when the
    /// properties it reads change (read on this scheduler, at the virtual time of the change).
    public func observations<Value>(of value: @escaping () -> Value) -> MarbleCore.Observable<Value> {
        MarbleCore.Observable.create { [unowned self] observer in
            let subscription = BooleanDisposable()
            let tracker = ObservationTracker(scheduler: self, read: value, isActive: { !subscription.isDisposed }) { current in
                observer.onNext(current)
            }
            tracker.track()
            return subscription
        }
    }
}

/// Reads a value under observation tracking and reads it again, on the scheduler, when it changes.
@available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, *)
private final class ObservationTracker<Value>: @unchecked Sendable {
    private unowned let scheduler: TestScheduler
    private let read: () -> Value
    private let isActive: () -> Bool
    private let emit: (Value) -> Void
    private var pending = false

    init(scheduler: TestScheduler, read: @escaping () -> Value, isActive: @escaping () -> Bool, emit: @escaping (Value) -> Void) {
        self.scheduler = scheduler
        self.read = read
        self.isActive = isActive
        self.emit = emit
    }

    /// Reads and emits the value, tracking it again; stops once the subscription is disposed.
    func track() {
        pending = false
        guard isActive() else { return }
        let current = withObservationTracking(read, onChange: { [self] in changed() })
        emit(current)
    }

    // Observation calls this as the property is about to change (willSet): the new value is read
    // by an action queued at the same virtual time.
    private func changed() {
        // After the subscription ended (the run is over, the scheduler maybe gone), ignore it.
        guard !pending, isActive() else { return }
        pending = true
        scheduler.schedule { [self] in track() }
    }
}
