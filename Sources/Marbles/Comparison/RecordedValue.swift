/// A recorded value in a form that can be compared and printed whatever its type: a plain
/// value, or the timeline of an inner observable (for observables of observables), with times
/// relative to the inner's emission.
public enum RecordedValue: CustomStringConvertible {
    /// A value.
    case plain(Any)
    /// An inner observable's events.
    case inner(InnerTimeline)

    public var description: String {
        switch self {
        case .plain(let value): return String(describing: value)
        case .inner(let timeline): return MarblePrinter().print(timeline.events, label: \.description).text
        }
    }

    /// Equal plain values (by `==` when the type is `Equatable`, else same type and same
    /// description) or equal inner timelines.
    public func matches(_ other: RecordedValue) -> Bool {
        switch (self, other) {
        case (.plain(let a), .plain(let b)): return plainValuesMatch(a, b)
        case (.inner(let a), .inner(let b)): return eventListsMatch(a.events, b.events)
        default: return false
        }
    }
}

/// The events of an inner observable, filled in as virtual time runs.
public final class InnerTimeline {
    /// The events, relative to the emission of the inner observable.
    public internal(set) var events: [Recorded<Event<RecordedValue>>]
    init(events: [Recorded<Event<RecordedValue>>] = []) { self.events = events }
}

func plainValuesMatch(_ a: Any, _ b: Any) -> Bool {
    if let a = a as? any Equatable { return a.isEqual(to: b) }
    return type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

func eventsMatch(_ a: Event<RecordedValue>, _ b: Event<RecordedValue>) -> Bool {
    switch (a, b) {
    case (.next(let x), .next(let y)): return x.matches(y)
    case (.completed, .completed): return true
    case (.error(let x), .error(let y)): return errorsMatch(x, y)
    default: return false
    }
}

func eventListsMatch(_ a: [Recorded<Event<RecordedValue>>], _ b: [Recorded<Event<RecordedValue>>]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.time == $1.time && eventsMatch($0.value, $1.value) }
}

/// Test observables expose their messages in erased form, so that an expected diagram can
/// use them as values for inner observables.
public protocol TestObservableMessages {
    /// The diagram's messages, erased.
    var erasedMessages: [Recorded<Event<RecordedValue>>] { get }
}

extension RecordedValue {
    /// Erases an expected value: test observables become inner timelines.
    static func expected(_ value: Any) -> RecordedValue {
        if let test = value as? any TestObservableMessages { return .inner(InnerTimeline(events: test.erasedMessages)) }
        return .plain(value)
    }
}
