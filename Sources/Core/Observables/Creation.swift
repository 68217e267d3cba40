extension Observable {
    /// Emits `element`, then completes.
    public static func just(_ element: Element) -> Observable<Element> {
        Observable { observer in
            observer.onNext(element)
            observer.onCompleted()
        }
    }

    /// Emits the elements of `sequence` in order, then completes. Stops early when the
    /// subscription is disposed from inside `onNext`.
    public static func from<S: Sequence>(_ sequence: S) -> Observable<Element> where S.Element == Element {
        Observable { observer in
            for element in sequence {
                if observer.isDisposed { return }
                observer.onNext(element)
            }
            observer.onCompleted()
        }
    }

    /// Emits `elements` in order, then completes.
    public static func of(_ elements: Element...) -> Observable<Element> { from(elements) }

    /// Completes at once.
    public static func empty() -> Observable<Element> {
        Observable { $0.onCompleted() }
    }

    /// Never emits, never ends.
    public static func never() -> Observable<Element> {
        Observable { _ in }
    }

    /// Fails at once with `error`.
    public static func error(_ error: any Error) -> Observable<Element> {
        Observable { $0.onError(error) }
    }

    /// Calls `factory` on every subscription and subscribes to what it returns; a thrown error
    /// becomes the subscription's error.
    public static func deferred<Source: ObservableType>(_ factory: @escaping () throws -> Source) -> Observable<Element>
    where Source.Element == Element {
        Observable { observer in
            do {
                let source = try factory().asObservable()
                source.subscribe(linkingInto: observer, observer.on)
            } catch {
                observer.onError(error)
            }
        }
    }

    /// Emits one value after `dueTime`, then completes; with a `period`, keeps emitting every
    /// `period` instead (values 0, 1, 2, …).
    public static func timer(_ dueTime: Duration, period: Duration? = nil, scheduler: any Scheduler) -> Observable<Element>
    where Element: FixedWidthInteger {
        Observable { observer in
            if let period {
                // One periodic schedule from the first due time: a first tick that fires before
                // its scheduling call returns cannot cancel the ticks after it.
                var count: Element = 0
                observer.setUpstream(
                    scheduler.schedulePeriodic(every: period, startingAfter: dueTime) {
                        observer.onNext(count)
                        count &+= 1
                    })
            } else {
                observer.setUpstream(
                    scheduler.schedule(after: dueTime) {
                        observer.onNext(0)
                        observer.onCompleted()
                    })
            }
        }
    }

    /// Emits 0, 1, 2, … every `period`, the first one `period` after subscription.
    public static func interval(_ period: Duration, scheduler: any Scheduler) -> Observable<Element>
    where Element: FixedWidthInteger {
        timer(period, period: period, scheduler: scheduler)
    }
}

extension Observable where Element: BinaryInteger {
    /// Emits `count` consecutive integers starting at `start`, then completes.
    @inlinable
    public static func range(start: Element, count: Int) -> Observable<Element> {
        Observable { observer in
            var value = start
            for _ in 0..<Swift.max(count, 0) {
                if observer.isDisposed { return }
                observer.onNext(value)
                value += 1
            }
            observer.onCompleted()
        }
    }
}
