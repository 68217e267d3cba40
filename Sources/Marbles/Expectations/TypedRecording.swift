/// The events an expectation recorded with their own type; erased only when something asks
/// for them (a failure message, an outcome handler, `recorded`), so that a passing test never
/// boxes its values.
@usableFromInline
class TypedRecordingBase {
    @usableFromInline init() {}

    /// The events, erased.
    var erasedEvents: [Recorded<Event<RecordedValue>>] { [] }
}

@usableFromInline
final class TypedRecording<Element>: TypedRecordingBase {
    // Appended once per event on the scheduler's thread: no runtime exclusivity checks.
    @exclusivity(unchecked) @usableFromInline var events: [Recorded<Event<Element>>] = []
    private var erasedCache: [Recorded<Event<RecordedValue>>] = []

    @inlinable override init() {}

    @inlinable func append(_ event: Recorded<Event<Element>>) { events.append(event) }

    override var erasedEvents: [Recorded<Event<RecordedValue>>] {
        // Recordings only grow: erase what was added since the last call.
        if erasedCache.count < events.count {
            erasedCache += events[erasedCache.count...].map { Recorded(time: $0.time, value: $0.value.map { RecordedValue.plain($0) }) }
        }
        return erasedCache
    }
}

/// An expected diagram read with its own value type, and the check that a typed recording
/// is exactly it.
@usableFromInline
struct TypedExpectation<Value> {
    @usableFromInline let expected: [Recorded<Event<Value>>]
    /// Whether the recording equals `expected`, event for event; when it does, the general
    /// comparison would find no mismatch either.
    @usableFromInline let holds: () -> Bool

    @inlinable
    init(expected: [Recorded<Event<Value>>], holds: @escaping () -> Bool) {
        self.expected = expected
        self.holds = holds
    }

    /// `expected` as the general comparison reads it.
    func erased() -> [Recorded<Event<RecordedValue>>] {
        expected.map { Recorded(time: $0.time, value: $0.value.map { RecordedValue.expected($0) }) }
    }
}

extension Event {
    /// The same event, values compared with `equal` and errors as marble comparisons compare them.
    @inlinable
    func matches(_ other: Event<Element>, _ equal: (Element, Element) -> Bool) -> Bool {
        switch (self, other) {
        case (.next(let a), .next(let b)): return equal(a, b)
        case (.completed, .completed): return true
        case (.error(let a), .error(let b)): return errorsMatch(a, b)
        default: return false
        }
    }
}
