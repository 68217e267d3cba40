extension ObservableType {
    /// On error, resubscribes up to `maxRetries` times (RxJS 7 `retry(count)`: `retry(2)`
    /// subscribes at most three times); the last error is forwarded.
    @inlinable
    public func retry(_ maxRetries: Int) -> Observable<Element> {
        retrying { _, attempt in attempt <= maxRetries }
    }

    /// On error, resubscribes every time, without limit (RxSwift `retry()`); only a
    /// completion, or unsubscribing, ends it. Under a virtual-time driver a source that fails
    /// at once ends at the step limit instead of spinning.
    @inlinable
    public func retry() -> Observable<Element> {
        retrying { _, _ in true }
    }

    /// On error, resubscribes for as long as `shouldRetry(error, attempt)` says so (`attempt`
    /// counts from 1). Synchronous failures are retried in a loop, not by recursion; under a
    /// virtual-time driver the loop spends its step budget, so `retry(Int.max)` of a source that
    /// fails at once ends (with that error) instead of spinning.
    @usableFromInline
    func retrying(loop: String = "retry", _ shouldRetry: @escaping (any Error, Int) -> Bool) -> Observable<Element> {
        let source = asObservable()
        return Observable { downstream in
            let slot = SerialDisposable()
            downstream.setUpstream(slot)
            let attempts = Locked(0)
            // The subscription (kept in `slot`) holds the trampoline; disposing the slot ends the cycle.
            let box = Locked<Trampoline<(any Error)?>?>(nil)
            let trampoline = Trampoline<(any Error)?> { lastError in
                guard !downstream.isDisposed else { return }
                guard RunawayGuard.spend(loop) else { return downstream.onError(lastError ?? RxError.noElements) }
                slot.set(
                    source.subscribe { event in
                        if case .error(let error) = event {
                            let attempt = attempts.withLock { count -> Int in
                                count += 1
                                return count
                            }
                            if shouldRetry(error, attempt), let again = box.withLock({ $0 }) { return again.run(error) }
                        }
                        downstream.on(event)
                    })
            }
            box.withLock { $0 = trampoline }
            trampoline.run(nil)
        }
    }

    /// Resubscribes when the observable that `notificationHandler` builds from the stream of
    /// errors emits; completes or fails when that observable does (RxJS `retryWhen`).
    @inlinable
    public func retry<Trigger: ObservableType>(
        when notificationHandler: @escaping (Observable<any Error>) -> Trigger
    ) -> Observable<Element> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let errors = PublishSubject<any Error>()
            let gate = Gate(downstream)
            let attempt = SerialDisposable()
            resources.insert(attempt)
            func subscribeSource() {
                attempt.set(
                    source.subscribe { event in
                        if case .error(let error) = event {
                            errors.onNext(error)
                        } else {
                            gate.send(event)
                        }
                    })
            }
            resources.insert(
                notificationHandler(errors.asObservable()).subscribe { event in
                    switch event {
                    case .next: subscribeSource()
                    case .error(let error): gate.send(.error(error))
                    case .completed: gate.send(.completed)
                    }
                })
            subscribeSource()
        }
    }
}
