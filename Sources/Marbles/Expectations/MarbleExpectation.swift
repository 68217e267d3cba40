/// What an observable under test should emit; made by
/// `TestScheduler.expect(_:unsubscribe:)`, finished by one of
/// `toBe`, `toEmit` or `toBeLike`. Nothing is compared until the run ends; a failure is
/// reported at the line of that call.
public final class MarbleExpectation {
    @usableFromInline unowned let scheduler: TestScheduler
    @usableFromInline let origin: Duration
    /// Events recorded erased (observables of observables, async work).
    // Appended once per event on the scheduler's thread: no runtime exclusivity checks.
    @exclusivity(unchecked) @usableFromInline var erased: [Recorded<Event<RecordedValue>>] = []
    /// Events recorded with their type (every other observable), erased when asked for.
    @usableFromInline var typed: TypedRecordingBase?
    /// The subscription diagram the expectation was made with: `toBeLike` watches the other
    /// observable over the same window.
    @usableFromInline var window: String?

    /// Everything recorded, erased.
    var actual: [Recorded<Event<RecordedValue>>] { typed?.erasedEvents ?? erased }

    @usableFromInline
    init(scheduler: TestScheduler, origin: Duration) {
        self.scheduler = scheduler
        self.origin = origin
    }

    /// The events recorded so far, relative to the time of `expect`.
    public var recorded: [Recorded<Event<RecordedValue>>] { actual }

    /// Expects the `diagram`, with values looked up in `values` (a test observable as a value
    /// stands for its timeline: an inner observable; a ``ValueMatcher`` matches by predicate).
    ///
    /// - Parameters:
    ///   - diagram: the expected timeline, counted from the time of `expect`.
    ///   - values: what each value key in `diagram` stands for.
    ///   - error: the error `#` stands for (compared by type and description).
    ///   - areEqual: compares an expected value with an actual one, instead of `==`.
    ///   - fileID: where a failure is reported (defaults to the call site).
    ///   - filePath: where a failure is reported (defaults to the call site).
    ///   - line: where a failure is reported (defaults to the call site).
    ///   - column: where a failure is reported (defaults to the call site).
    public func toBe<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, areEqual: ((Value, Value) -> Bool)? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toBe(
            diagram, values: values, error: error, areEqual: areEqual,
            at: MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Expects the `diagram`, whose values are its characters as Strings.
    public func toBe(
        _ diagram: String, error: any Error = MarbleError.boxed,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toBe(
            diagram, values: [String: String](), error: error, areEqual: nil,
            at: MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// `toBe(_:values:error:areEqual:fileID:filePath:line:column:)` with the location given
    /// as a value, for helpers that pass their caller's location on.
    public func toBe<Value>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, areEqual: ((Value, Value) -> Bool)? = nil,
        at location: MarbleSourceLocation
    ) {
        check(diagram, values: values, error: error, areEqual: areEqual, at: location, typed: nil)
    }

    /// Expects the `diagram`, with `Equatable` values looked up in `values`; as the general
    /// `toBe(_:values:error:areEqual:fileID:filePath:line:column:)`, and faster: a recording
    /// of `Value`s is compared without erasing it.
    @inlinable
    public func toBe<Value: Equatable>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, areEqual: ((Value, Value) -> Bool)? = nil,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toBe(
            diagram, values: values, error: error, areEqual: areEqual,
            at: MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// `toBe(_:values:error:areEqual:fileID:filePath:line:column:)` for `Equatable` values,
    /// with the location given as a value.
    @inlinable
    public func toBe<Value: Equatable>(
        _ diagram: String, values: [String: Value], error: any Error = MarbleError.boxed, areEqual: ((Value, Value) -> Bool)? = nil,
        at location: MarbleSourceLocation
    ) {
        check(
            diagram, values: values, error: error, areEqual: areEqual, at: location,
            typed: typedExpectation(diagram, values, error, areEqual ?? (==)))
    }

    /// The typed comparison, when the recording holds `Value`s (not an observable of
    /// observables) and the diagram reads with `values`; `nil` sends everything to the general
    /// path, which also reports a malformed diagram.
    @inlinable
    func typedExpectation<Value>(
        _ diagram: String, _ values: [String: Value], _ error: any Error, _ equal: @escaping (Value, Value) -> Bool
    ) -> TypedExpectation<Value>? {
        guard let recording = typed as? TypedRecording<Value>, !values.isEmpty || Value.self == String.self else { return nil }
        guard let expected = try? scheduler.parser.parse(diagram, kind: .expected, values: values, error: error) else { return nil }
        // A passing test records as many events as it expects: room for them now, not by doubling.
        recording.events.reserveCapacity(recording.events.count + expected.count)
        return TypedExpectation(expected: expected) {
            recording.events.elementsEqual(expected) { a, b in a.time == b.time && a.value.matches(b.value, equal) }
        }
    }

    /// Registers the comparison of a `toBe` for the end of the run.
    @usableFromInline
    func check<Value>(
        _ diagram: String, values: [String: Value], error: any Error, areEqual: ((Value, Value) -> Bool)?,
        at location: MarbleSourceLocation,
        typed: TypedExpectation<Value>?
    ) {
        var parsed: [Recorded<Event<RecordedValue>>]?
        if typed == nil {
            do {
                parsed = try parseExpected(diagram, values: values, error: error)
            } catch {
                // The diagram is wrong, not the observable: one failure, no knock-on comparison.
                scheduler.report(error.description, at: location)
                return
            }
        }
        let inputs = scheduler.createdInputs
        scheduler.register(at: location) { [self, unowned scheduler] in
            // Passing typed means passing the general comparison; anything else (a failure to
            // explain, or a run whose outcome is observed) takes the general path.
            if scheduler.onExpectationChecked == nil, typed?.holds() == true { return }
            // Made only on the general path: a passing test's fixed cost should not pay for them.
            let keys = values.sorted { $0.key < $1.key }.map { (key: $0.key, value: RecordedValue.expected($0.value)) }
            let compare = areEqual.map { areEqual in
                { (a: Any, b: Any) -> Bool in
                    guard let a = a as? Value, let b = b as? Value else { return plainValuesMatch(a, b) }
                    return areEqual(a, b)
                }
            }
            // Erased only now: a typed expectation that held never needs it.
            let expected = parsed ?? typed?.erased() ?? []
            let comparison = MarbleComparison(expected: expected, actual: actual, frame: scheduler.frame, keys: keys, areEqual: compare)
            if !comparison.matches {
                let note = scheduler.recordingNote(written: diagram, candidate: comparison.actualDiagram(), at: location) { candidate in
                    let problem: String
                    do throws(MarbleSyntaxError) {
                        let reparsed = try parseExpected(candidate, values: values, error: error)
                        let check = MarbleComparison(
                            expected: reparsed, actual: actual, frame: scheduler.frame, keys: keys, areEqual: compare)
                        guard let first = check.mismatches.first else { return nil }
                        problem = "\(first)"
                    } catch {
                        problem = error.reason
                    }
                    return "the actual diagram '\(candidate)' does not read back as the actual values with this test's `values:` "
                        + "(\(problem)); give those values keys in `values:` and record again"
                }
                scheduler.report(comparison.message() + (note.map { "\n" + $0 } ?? ""), at: location)
            }
            scheduler.onExpectationChecked?(
                ExpectationOutcome(
                    location: location, testName: scheduler.testName, inputs: inputs, expected: expected, actual: actual,
                    mismatches: comparison.mismatches, frame: scheduler.frame))
        }
    }

    private func parseExpected<Value>(
        _ diagram: String, values: [String: Value], error: any Error
    ) throws(MarbleSyntaxError) -> [Recorded<Event<RecordedValue>>] {
        if values.isEmpty {
            return try scheduler.parser.parse(diagram, kind: .expected, error: error).map {
                Recorded(time: $0.time, value: $0.value.map { .plain($0) })
            }
        }
        return try scheduler.parser.parse(diagram, kind: .expected, values: values.mapValues { RecordedValue.expected($0) }, error: error)
    }

    /// Expects these values in this order, whatever their timing, then completion (or, with
    /// `completing: false`, no terminal event), for tests that find diagrams heavy (RxJava's
    /// `assertValues`, Turbine). A failure lists both value lists and the actual diagram.
    public func toEmit<Value>(
        _ values: [Value], completing: Bool = true,
        fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        toEmit(values, completing: completing, at: MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// ``toEmit(_:completing:fileID:filePath:line:column:)`` at a location given as a value.
    public func toEmit<Value>(_ values: [Value], completing: Bool = true, at location: MarbleSourceLocation) {
        scheduler.register(at: location) { [self, unowned scheduler] in
            let received = actual.compactMap { recorded -> RecordedValue? in
                if case .next(let value) = recorded.value { return value }
                return nil
            }
            let terminal = actual.last.flatMap { recorded -> Event<RecordedValue>? in
                if case .next = recorded.value { return nil }
                return recorded.value
            }
            let expectedValues = values.map { RecordedValue.expected($0) }
            let valuesMatch = received.count == expectedValues.count && zip(expectedValues, received).allSatisfy { $0.matches($1) }
            let terminalMatches = completing ? terminal.map { if case .completed = $0 { true } else { false } } ?? false : terminal == nil
            guard !(valuesMatch && terminalMatches) else { return }
            let printed = MarblePrinter(frame: scheduler.frame).print(actual, label: \.description).text
            let ending = completing ? "then completed" : "and no terminal event"
            let actualEnding =
                terminal.map { "then \(MarbleComparison.describe($0, label: \.description, typed: false))" } ?? "and no terminal event"
            scheduler.report(
                """
                values differ
                expected: \(expectedValues.map(\.description)) \(ending)
                actual:   \(received.map(\.description)) \(actualEnding)
                diagram:  \(printed)
                """, at: location)
        }
    }

    /// Expects the same timeline as `other`, subscribed at the same virtual time and over the
    /// same subscription window (the expectation's `unsubscribe:` diagram) (RxJS and Rx.NET's
    /// observable-against-observable comparison).
    public func toBeLike<O: ObservableType>(
        _ other: O, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
    ) {
        let location = MarbleSourceLocation(fileID: fileID, filePath: filePath, line: line, column: column)
        let reference = scheduler.expect(other, unsubscribe: window, at: location)
        let inputs = scheduler.createdInputs
        scheduler.register(at: location) { [self, unowned scheduler] in
            let comparison = MarbleComparison(expected: reference.actual, actual: actual, frame: scheduler.frame)
            if !comparison.matches { scheduler.report(comparison.message(headline: "timelines differ"), at: location) }
            // The reference's timeline stands as the expected one (a diagram spec shows both).
            scheduler.onExpectationChecked?(
                ExpectationOutcome(
                    location: location, testName: scheduler.testName, inputs: inputs, expected: reference.actual, actual: actual,
                    mismatches: comparison.mismatches, frame: scheduler.frame))
        }
    }
}
