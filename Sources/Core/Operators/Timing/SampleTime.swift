extension ObservableType {
    /// Emits the latest value, if a new one arrived, every `period` after subscribing
    /// (RxJS `sampleTime`: ``sample(_:)`` with an interval as the notifier). Completes with
    /// the source, without a last sample.
    @inlinable
    public func sample(every period: Duration, scheduler: any Scheduler) -> Observable<Element> {
        sample(Observable<Int>.interval(period, scheduler: scheduler))
    }
}
