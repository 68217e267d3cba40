extension ObservableType {
    /// Delays each value until the observable `duration` returns for it emits its first value
    /// (RxJS 7 `delayWhen`); a duration that completes without emitting drops the value. Values
    /// may overtake each other. Completes when the source has completed and no value is still
    /// waiting; an error from the source or a duration ends it at once.
    ///
    /// ```
    /// source:   -a--b--c|        duration(a) = "---x", duration(b) = "-x", duration(c) = "|"
    /// result:   ----ab---|
    /// ```
    @inlinable
    public func delayWhen<Trigger: ObservableType>(_ duration: @escaping (Element) throws -> Trigger) -> Observable<Element> {
        asObservable().flatMap { value in
            try duration(value).asObservable().take(1).map { _ in value }
        }
    }

    /// Delays every value to the virtual or real instant `date` on `scheduler`'s clock (RxJS
    /// `delay(date)`): values before it wait until then, values at or after it pass with no
    /// delay; order is kept. Completion waits for the values still waiting; an error passes at
    /// once.
    @inlinable
    public func delay(until date: Duration, scheduler: any Scheduler) -> Observable<Element> {
        // Deferred: the wait is measured when the value's turn comes, not when it arrived.
        asObservable().concatMap { value in
            Observable.deferred { () -> Observable<Element> in
                let wait = date - scheduler.now
                return wait > .zero ? Observable<Int>.timer(wait, scheduler: scheduler).map { _ in value } : .just(value)
            }
        }
    }
}
