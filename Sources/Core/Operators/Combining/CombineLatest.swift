extension Observable {
    /// Emits an array of the latest value of every source whenever one of them emits, once all
    /// have emitted. Completes when all have completed, or at once when one completes without
    /// ever emitting (RxJS 7). An empty `sources` completes at once.
    @inlinable
    public static func combineLatest<S: ObservableType>(_ sources: [S]) -> Observable<[S.Element]> where S.Element == Element {
        let sources = sources.map { $0.asObservable() }
        return Observable<[Element]>.composite { downstream, resources in
            if sources.isEmpty { return downstream.onCompleted() }
            let gate = Gate(downstream)
            var latest = [Element?](repeating: nil, count: sources.count)
            var missing = sources.count
            var done = 0
            for (index, source) in sources.enumerated() {
                resources.insert(
                    source.subscribe { event in
                        gate.locked {
                            switch event {
                            case .next(let value):
                                if latest[index] == nil { missing -= 1 }
                                latest[index] = value
                                if missing == 0 { gate.emit(.next(latest.map { $0! })) }
                            case .error(let error): gate.emit(.error(error))
                            case .completed:
                                done += 1
                                if done == sources.count || latest[index] == nil { gate.emit(.completed) }
                            }
                        }
                    })
            }
        }
    }

    /// ``combineLatest(_:)-(_)`` of two sources, combined by `resultSelector`.
    @inlinable
    public static func combineLatest<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, Never>
        return Observable<T>.combineLatest([a.asObservable().map(T.a), b.asObservable().map(T.b)])
            .map { try resultSelector($0[0].a!, $0[1].b!) }
    }

    /// ``combineLatest(_:)-(_)`` of three sources, combined by `resultSelector`.
    @inlinable
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, C.Element>
        return Observable<T>.combineLatest([a.asObservable().map(T.a), b.asObservable().map(T.b), c.asObservable().map(T.c)])
            .map { try resultSelector($0[0].a!, $0[1].b!, $0[2].c!) }
    }

    /// ``combineLatest(_:_:resultSelector:)`` as a tuple.
    @inlinable
    public static func combineLatest<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<(A.Element, B.Element)>
    where Element == (A.Element, B.Element) {
        combineLatest(a, b) { ($0, $1) }
    }
}

extension ObservableType {
    /// Combines with the latest value of `other`; see ``Observable/combineLatest(_:_:resultSelector:)``.
    @inlinable
    public func combineLatest<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        Observable.combineLatest(self, other, resultSelector: resultSelector)
    }
}

extension Observable {
    /// The latest values of every observable in `sources`, combined by `resultSelector`, each
    /// time any of them emits once all have (RxSwift `combineLatest(_:resultSelector:)`).
    @inlinable
    public static func combineLatest<S: ObservableType>(
        _ sources: [S], resultSelector: @escaping ([S.Element]) throws -> Element
    ) -> Observable<Element> {
        Observable<S.Element>.combineLatest(sources).map(resultSelector)
    }
}
