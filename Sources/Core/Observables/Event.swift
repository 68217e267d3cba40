/// One notification of a stream.
///
/// Every stream obeys the grammar `next* (error | completed)?`: any number of values, then at
/// most one terminal event, after which nothing is delivered. Events to one observer are
/// serialized: never two `on(_:)` calls at once. The engine enforces the grammar in one place,
/// ``Observer``, which every subscription goes through: events after a terminal event are
/// dropped, and the subscription's upstream is disposed as soon as the terminal event has been
/// delivered.
public enum Event<Element> {
    /// A value.
    case next(Element)
    /// The stream failed; nothing follows.
    case error(any Error)
    /// The stream finished; nothing follows.
    case completed

    /// Whether this is `error` or `completed`.
    @inlinable public var isTerminal: Bool {
        if case .next = self { return false }
        return true
    }

    /// The value of a `next` event.
    @inlinable public var element: Element? {
        if case .next(let value) = self { return value }
        return nil
    }

    /// The error of an `error` event.
    @inlinable public var error: (any Error)? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// The same event with its value transformed.
    @inlinable public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let value):
            do { return .next(try transform(value)) } catch { return .error(error) }
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Event: Sendable where Element: Sendable {}

extension Event: Equatable where Element: Equatable {
    /// Values compare with `==`; errors compare by dynamic type and description, since
    /// `any Error` has no equality of its own.
    public static func == (lhs: Event, rhs: Event) -> Bool {
        switch (lhs, rhs) {
        case (.next(let l), .next(let r)): return l == r
        case (.completed, .completed): return true
        case (.error(let l), .error(let r)): return errorsMatch(l, r)
        default: return false
        }
    }
}

/// Whether two errors are the same kind with the same description.
@usableFromInline package func errorsMatch(_ lhs: any Error, _ rhs: any Error) -> Bool {
    type(of: lhs) == type(of: rhs) && String(describing: lhs) == String(describing: rhs)
}

extension Event: CustomStringConvertible {
    public var description: String {
        switch self {
        case .next(let value): return "next(\(value))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

/// Errors the engine raises itself.
public enum RxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `first()`, `last()`, `elementAt`, `reduce` without seed… found no element.
    case noElements
    /// `elementAt(n)` found fewer than n + 1 elements.
    case argumentOutOfRange
    /// `timeout` saw no event in time.
    case timeout
    /// A blocking helper waited longer than its timeout.
    case blockingTimeout(Duration)
    /// A virtual-time scheduler ran more steps than its limit allows.
    case stepLimitExceeded(steps: Int, now: Duration)
    /// `switchCase` got a key that matches no case, and it has no default.
    case noCase(key: String)
    /// `single()` saw a second value.
    case moreThanOneElement
    /// `single(where:)` saw values, none of which matched.
    case noMatchingElement

    /// The error in words.
    public var description: String {
        switch self {
        case .noElements: return "sequence contains no elements"
        case .argumentOutOfRange: return "argument out of range"
        case .timeout: return "sequence timeout"
        case .blockingTimeout(let d): return "blocking call gave up after \(d)"
        case .stepLimitExceeded(let steps, let now):
            return "virtual time scheduler ran \(steps) steps and is still busy at \(now): "
                + "a source that never settles (an interval without take, a retry loop?)"
        case .noCase(let key): return "no case for key \(key) and no default"
        case .moreThanOneElement: return "sequence contains more than one element"
        case .noMatchingElement: return "no element matches the predicate"
        }
    }
}
