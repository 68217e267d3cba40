/// A value and the scheduler time it arrived at: what `timestamp` emits, and what Marbles'
/// recordings hold (`Recorded` is this type).
public struct Timestamped<Value> {
    /// When it arrived, on the scheduler's clock (in a recording: relative to its frame 0).
    public var time: Duration
    /// The value.
    public var value: Value

    /// Pairs a value with its time (for expected values in tests, say).
    @inlinable
    public init(value: Value, time: Duration) {
        self.time = time
        self.value = value
    }

    /// Stamps `value` with `time`.
    @inlinable
    public init(time: Duration, value: Value) {
        self.time = time
        self.value = value
    }
}

extension Timestamped: Equatable where Value: Equatable {}
extension Timestamped: Sendable where Value: Sendable {}

extension Timestamped: CustomStringConvertible {
    /// `value @ time`.
    public var description: String { "\(value) @ \(time)" }
}

/// A value and the time since the previous one (or since the subscription, for the first).
public struct TimeIntervalled<Value> {
    /// The value.
    public var value: Value
    /// The time since the previous value or the subscription.
    public var interval: Duration

    /// Pairs a value with an interval (for expected values in tests, say).
    @inlinable
    public init(value: Value, interval: Duration) {
        self.value = value
        self.interval = interval
    }
}

extension TimeIntervalled: Equatable where Value: Equatable {}
extension TimeIntervalled: Sendable where Value: Sendable {}

extension ObservableType {
    /// Attaches to each value the time it arrived on `scheduler`'s clock (RxJS `timestamp`).
    @inlinable
    public func timestamp(scheduler: any Scheduler) -> Observable<Timestamped<Element>> {
        map { Timestamped(value: $0, time: scheduler.now) }
    }

    /// Attaches to each value the time since the previous value, or since the subscription
    /// for the first (RxJS `timeInterval`).
    @inlinable
    public func timeInterval(scheduler: any Scheduler) -> Observable<TimeIntervalled<Element>> {
        let source = asObservable()
        return Observable.deferred {
            let last = SerialState(scheduler.now)
            return source.map { value in
                let now = scheduler.now
                defer { last.value = now }
                return TimeIntervalled(value: value, interval: now - last.value)
            }
        }
    }
}
