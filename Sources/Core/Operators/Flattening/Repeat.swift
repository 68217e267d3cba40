/// Marks the end of one pass of `repeat`, so the retry machinery (a loop, not recursion,
/// with the runaway guard, constant memory) can serve it.
private struct RepeatPass: Error {}

extension ObservableType {
    /// Subscribes to the source `count` times in a row, each time after the previous one
    /// completes (RxJS `repeat(count)`); an error ends it at once. `repeat(0)` completes.
    @inlinable
    public func `repeat`(_ count: Int) -> Observable<Element> {
        guard count > 0 else { return .empty() }
        return repeating { pass in pass < count }
    }

    /// Subscribes to the source again each time it completes, without end (RxSwift/RxJS
    /// `repeat()`); an error, or unsubscribing, ends it. Under a virtual-time driver a source
    /// that completes at once ends at the step limit instead of spinning.
    @inlinable
    public func `repeat`() -> Observable<Element> {
        repeating { _ in true }
    }

    /// Subscribes to the source `count` times (without end when `nil`), waiting `delay` on
    /// `scheduler` after each completion before the next (RxJS `repeat({ count, delay })`).
    /// The last pass's completion completes at once; an error ends it at once.
    @inlinable
    public func `repeat`(_ count: Int? = nil, delay: Duration, scheduler: any Scheduler) -> Observable<Element> {
        if let count, count <= 0 { return .empty() }
        let source = asObservable()
        let passes = Observable.deferred {
            // Per subscription: the first pass starts at once, later ones after the delay.
            let started = Locked(false)
            return Observable.deferred { () -> Observable<Element> in
                guard
                    started.withLock({ started in
                        defer { started = true }
                        return started
                    })
                else { return source }
                return Observable<Int>.timer(delay, scheduler: scheduler).flatMap { _ in source }
            }.repeating { pass in count.map { pass < $0 } ?? true }
        }
        return passes
    }

    /// Resubscribes after the `pass`-th completion (counting from 1) while `again(pass)`.
    @usableFromInline
    func repeating(_ again: @escaping (Int) -> Bool) -> Observable<Element> {
        Observable.concat(asObservable(), Observable.error(RepeatPass()))
            .retrying(loop: "repeat") { error, pass in error is RepeatPass && again(pass) }
            .catch { error in error is RepeatPass ? Observable<Element>.empty() : Observable.error(error) }
    }
}
