extension ObservableType where Element: ObservableType {
    /// Mirrors an inner observable, ignoring the ones that arrive while it runs (RxJS
    /// `exhaustAll`; ``flatMapFirst(_:)`` without the mapping).
    @inlinable
    public func exhaustAll() -> Observable<Element.Element> {
        flatMapFirst { $0 }
    }

    /// Collects the inner observables until the outer one completes, then combines their
    /// latest values (RxJS `combineLatestAll`). No inner observables: completes.
    @inlinable
    public func combineLatestAll() -> Observable<[Element.Element]> {
        toArray().flatMap { inners in
            inners.isEmpty ? .empty() : Observable<Element.Element>.combineLatest(inners)
        }
    }

    /// Collects the inner observables until the outer one completes, then zips them (RxJS
    /// `zipAll`). No inner observables: completes.
    @inlinable
    public func zipAll() -> Observable<[Element.Element]> {
        toArray().flatMap { inners in
            inners.isEmpty ? .empty() : Observable<Element.Element>.zip(inners)
        }
    }
}
