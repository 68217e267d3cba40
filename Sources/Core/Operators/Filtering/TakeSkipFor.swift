extension ObservableType {
    /// Emits values for `duration` after subscribing, then completes and unsubscribes (RxSwift
    /// `take(for:scheduler:)`). For a value at exactly `duration`, whichever was scheduled first
    /// wins (on a `TestScheduler`, a hot observable's values are scheduled at the run's start).
    @inlinable
    public func take(for duration: Duration, scheduler: any Scheduler) -> Observable<Element> {
        take(until: Observable<Int>.timer(duration, scheduler: scheduler))
    }

    /// Drops values for `duration` after subscribing, then passes the rest (RxSwift
    /// `skip(for:scheduler:)`). For a value at exactly `duration`, whichever was scheduled first
    /// wins, as with ``take(for:scheduler:)``.
    @inlinable
    public func skip(for duration: Duration, scheduler: any Scheduler) -> Observable<Element> {
        skip(until: Observable<Int>.timer(duration, scheduler: scheduler))
    }
}
