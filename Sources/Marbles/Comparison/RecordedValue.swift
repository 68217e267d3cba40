/// A recorded value in a form that can be compared and printed whatever its type: a plain
/// value, or the timeline of an inner observable (for observables of observables), with times
/// relative to the inner's emission.
public enum RecordedValue: CustomStringConvertible {
    /// A value.
    case plain(Any)
    /// An inner observable's events.
    case inner(RecordedValue.InnerTimeline)

    /// The value's description, or the inner timeline as a diagram.
    public var description: String {
        switch self {
        case .plain(let value): return String(describing: value)
        case .inner(let timeline): return MarbleDiagram.Printer().print(timeline.events, label: \.description).text
        }
    }

    /// The value with its type (`1: Int`, `"1": String`), for values whose descriptions collide.
    public var typedDescription: String {
        switch self {
        case .plain(let value): return "\(String(reflecting: value)): \(type(of: value))"
        case .inner: return "observable " + description
        }
    }

    /// Equal plain values (by `==` when the type is `Equatable`, else same type and same
    /// description) or equal inner timelines. An expected ``ValueMatcher`` decides for itself.
    public func matches(_ other: RecordedValue) -> Bool { matches(other, areEqual: nil) }

    /// As ``matches(_:)``, with `areEqual` deciding for plain values when given.
    func matches(_ other: RecordedValue, areEqual: ((Any, Any) -> Bool)?) -> Bool {
        switch (self, other) {
        case (.plain(let a as ValueMatcher), .plain(let b)): return a.accepts(b)
        case (.plain(let a), .plain(let b as ValueMatcher)): return b.accepts(a)
        case (.plain(let a), .plain(let b)): return ValueEquality.plain(a, b, areEqual: areEqual)
        case (.inner(let a), .inner(let b)): return eventListsMatch(a.events, b.events, areEqual: areEqual)
        default: return false
        }
    }
}

/// A value in an expected diagram's `values:` that matches by a predicate instead of `==`
/// (jest-marbles' and rxjs-marbles' most asked-for feature).
///
/// ```swift
/// scheduler.expect(ids).toBe("-a-b|", values: [
///     "a": ValueMatcher("a positive Int") { ($0 as? Int).map { $0 > 0 } ?? false },
///     "b": .any,
/// ])
/// ```
public struct ValueMatcher: CustomStringConvertible {
    /// What the matcher accepts, in words; printed in diagrams and failures.
    public var description: String
    private let predicate: (Any) -> Bool

    /// A matcher accepting the values for which `predicate` holds.
    public init(_ description: String, _ predicate: @escaping (Any) -> Bool) {
        self.description = description
        self.predicate = predicate
    }

    /// A matcher for values of type `T` for which `predicate` holds.
    public static func of<T>(_ type: T.Type, _ description: String, _ predicate: @escaping (T) -> Bool) -> ValueMatcher {
        ValueMatcher(description) { ($0 as? T).map(predicate) ?? false }
    }

    /// A matcher accepting every value.
    public static var any: ValueMatcher { ValueMatcher("any") { _ in true } }

    /// Whether `value` is accepted.
    public func accepts(_ value: Any) -> Bool { predicate(value) }
}

extension RecordedValue {
    /// The events of an inner observable, filled in as virtual time runs.
    public final class InnerTimeline {
        /// The events, relative to the emission of the inner observable.
        public internal(set) var events: [Recorded<Event<RecordedValue>>]
        init(events: [Recorded<Event<RecordedValue>>] = []) { self.events = events }
    }
}

/// Compares events of long timelines fast: when consecutive plain values share a type, that
/// type's facts (a matcher? an Optional? `Equatable`?) are looked up once instead of through
/// dynamic casts for every pair. Gives the same answers as ``eventsMatch(_:_:areEqual:)``.
struct EventComparer {
    let areEqual: ((Any, Any) -> Bool)?
    private var cachedType: ObjectIdentifier?
    private var cachedIsPlain = false
    private var cachedFacts: ValueEquality.Facts?

    init(areEqual: ((Any, Any) -> Bool)?) { self.areEqual = areEqual }

    mutating func matches(_ a: Event<RecordedValue>, _ b: Event<RecordedValue>) -> Bool {
        if case .next(.plain(let x)) = a, case .next(.plain(let y)) = b, let answer = plainMatch(x, y) { return answer }
        return eventsMatch(a, b, areEqual: areEqual)
    }

    /// `nil` when the pair needs the general rules (different types, matchers, Optionals,
    /// which a cast may unwrap into a matcher); else ``ValueEquality``'s answer, with the
    /// type's facts looked up once.
    private mutating func plainMatch(_ x: Any, _ y: Any) -> Bool? {
        let valueType = type(of: x)
        guard valueType == type(of: y) else { return nil }
        let id = ObjectIdentifier(valueType)
        if id != cachedType {
            cachedType = id
            cachedIsPlain = valueType != ValueMatcher.self && !(valueType is any OptionalMarker.Type)
            cachedFacts = ValueEquality.Facts(of: x)
        }
        guard cachedIsPlain, let facts = cachedFacts else { return nil }
        if let areEqual { return areEqual(x, y) }
        return facts.match(x, y)
    }
}

/// Optionals, recognized by type.
private protocol OptionalMarker {}
extension Optional: OptionalMarker {}

func eventsMatch(_ a: Event<RecordedValue>, _ b: Event<RecordedValue>, areEqual: ((Any, Any) -> Bool)? = nil) -> Bool {
    a.matches(b) { $0.matches($1, areEqual: areEqual) }
}

func eventListsMatch(
    _ a: [Recorded<Event<RecordedValue>>], _ b: [Recorded<Event<RecordedValue>>], areEqual: ((Any, Any) -> Bool)? = nil
) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.time == $1.time && eventsMatch($0.value, $1.value, areEqual: areEqual) }
}

/// Test observables expose their messages in erased form, so that an expected diagram can
/// use them as values for inner observables.
@usableFromInline
package protocol TestObservableMessages: AnyObject {
    /// Hot or cold.
    var kind: MarbleDiagram.Kind { get }
    /// The diagram's messages, erased.
    var erasedMessages: [Recorded<Event<RecordedValue>>] { get }
    /// Its subscriptions so far (for the leak check at the end of a run).
    var subscriptionLogs: SubscriptionLogs { get }
    /// Where the test made it, and the name it gave it (`nil` for one made from messages).
    var declaration: TestObservableDeclaration? { get }
}

/// Where a test made a test observable and the name it gave it (`name:`), for its diagrams.
@usableFromInline package struct TestObservableDeclaration: Sendable {
    /// The `name:` argument, if any.
    @usableFromInline package var name: String?
    /// The `cold(…)`/`hot(…)` call.
    @usableFromInline package var location: MarbleFailure.Location

    @inlinable package init(name: String?, location: MarbleFailure.Location) {
        self.name = name
        self.location = location
    }
}

extension RecordedValue {
    /// Erases an expected value: test observables become inner timelines.
    static func expected(_ value: Any) -> RecordedValue {
        if let test = value as? any TestObservableMessages { return .inner(RecordedValue.InnerTimeline(events: test.erasedMessages)) }
        return .plain(value)
    }
}
