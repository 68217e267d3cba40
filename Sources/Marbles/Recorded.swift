/// A value stamped with the virtual time at which it happened: MarbleCore's `Timestamped`,
/// under the name marble tests (and RxTest) give it. `time` is relative to the recording's
/// frame 0.
public typealias Recorded<Value> = Timestamped<Value>

/// When a test observable was subscribed and unsubscribed.
public struct SubscriptionLog: Equatable, Sendable, CustomStringConvertible {
    /// The subscription time.
    public var subscribed: Duration
    /// The unsubscription time; `nil` while still subscribed.
    public var unsubscribed: Duration?
    /// The test observable that logged it (its identity; 0: none), so that a subscription
    /// expectation given a log learns whose it is from the log itself. Not part of equality.
    @usableFromInline package var owner: UInt = 0

    /// Creates a log entry.
    public init(subscribed: Duration, unsubscribed: Duration? = nil) {
        self.subscribed = subscribed
        self.unsubscribed = unsubscribed
    }

    /// The same times (whoever logged them).
    public static func == (a: SubscriptionLog, b: SubscriptionLog) -> Bool {
        a.subscribed == b.subscribed && a.unsubscribed == b.unsubscribed
    }

    public var description: String {
        "subscribed @ \(subscribed), " + (unsubscribed.map { "unsubscribed @ \($0)" } ?? "never unsubscribed")
    }
}

/// A test observable's subscription log, in subscription order (see ``InlineFirstArray``).
@usableFromInline package typealias SubscriptionLogs = InlineFirstArray<SubscriptionLog>

/// An array whose first element is kept inline: most test observables are subscribed once and
/// most tests make one expectation, and their lists then allocate nothing.
@usableFromInline
package struct InlineFirstArray<Element>: RandomAccessCollection, MutableCollection {
    @usableFromInline var head: Element?
    @usableFromInline var rest: [Element] = []

    @inlinable package init() {}

    package init(_ elements: [Element]) {
        head = elements.first
        rest = Array(elements.dropFirst())
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { head == nil ? 0 : 1 &+ rest.count }

    @inlinable
    package subscript(position: Int) -> Element {
        get { position == 0 ? head! : rest[position &- 1] }
        set {
            if position == 0 { head = newValue } else { rest[position &- 1] = newValue }
        }
    }

    @inlinable
    package mutating func append(_ element: Element) {
        if head == nil { head = element } else { rest.append(element) }
    }
}

/// The error a bare `#` carries when a diagram gets no `error:` argument.
public struct MarbleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error's text.
    public var message: String
    /// Creates an error with a text; the default reads "error", as in RxJS.
    public init(_ message: String = "error") { self.message = message }
    public var description: String { message }

    /// The default error of `#`, boxed once: the default argument `MarbleError()` would box a
    /// new `any Error` (an allocation) on every call.
    @usableFromInline static let boxed: any Error = MarbleError()
}

/// Whether the events' times never decrease (recordings and parsed diagrams usually are).
@inlinable
func areInTimeOrder<Element>(_ events: [Recorded<Event<Element>>]) -> Bool {
    // By index, reading the times in place: pairs from `zip` copied every event (a retain and a
    // release of its value each), a few percent of a 1,000-event test.
    var index = 1
    while index < events.count {
        if events[index].time < events[index - 1].time { return false }
        index += 1
    }
    return true
}
