extension ObservableType {
    /// Ignores the source's values and, when it completes, continues with `next` (ReactiveCocoa
    /// `then:`): the same as `ignoreElements()` followed by `concat`. An error from the source
    /// ends it without subscribing to `next`; the block runs at that completion.
    @inlinable
    public func then<Next: ObservableType>(_ next: @escaping () throws -> Next) -> Observable<Next.Element> {
        Observable.concat(
            asObservable().compactMap { _ -> Next.Element? in nil },
            Observable.deferred(next))
    }

    /// Passes the source's values and errors until `replacement` sends any event, then unsubscribes
    /// from the source and passes `replacement`'s events instead (ReactiveCocoa
    /// `takeUntilReplacement:`). The source's completion is not passed on: the result ends when
    /// `replacement` does. `replacement` is subscribed first, so one that emits at once wins.
    @inlinable
    public func take<Replacement: ObservableType>(untilReplacedBy replacement: Replacement) -> Observable<Element>
    where Replacement.Element == Element {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let sourceSlot = SerialDisposable()
            resources.insert(sourceSlot)
            var replaced = false
            resources.insert(
                replacement.subscribe { event in
                    sourceSlot.dispose()
                    gate.locked {
                        replaced = true
                        gate.emit(event)
                    }
                })
            sourceSlot.set(
                source.subscribe { event in
                    gate.locked {
                        guard !replaced else { return }
                        if case .completed = event { return }
                        gate.emit(event)
                    }
                })
        }
    }
}
