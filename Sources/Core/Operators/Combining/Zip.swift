extension Observable {
    /// Pairs the n-th values of every source. Completes as soon as a completed source has no
    /// buffered value left (RxJS 7). An empty `sources` completes at once.
    @inlinable
    public static func zip<S: ObservableType>(_ sources: [S]) -> Observable<[S.Element]> where S.Element == Element {
        let sources = sources.map { $0.asObservable() }
        return Observable<[Element]>.composite { downstream, resources in
            if sources.isEmpty { return downstream.onCompleted() }
            let gate = Gate(downstream)
            var queues = [[Element]](repeating: [], count: sources.count)
            var heads = [Int](repeating: 0, count: sources.count)
            var completed = [Bool](repeating: false, count: sources.count)
            func available(_ i: Int) -> Int { queues[i].count - heads[i] }
            for (index, source) in sources.enumerated() {
                resources.insert(
                    source.subscribe { event in
                        gate.locked {
                            switch event {
                            case .next(let value):
                                queues[index].append(value)
                                if (0..<sources.count).allSatisfy({ available($0) > 0 }) {
                                    var tuple: [Element] = []
                                    tuple.reserveCapacity(sources.count)
                                    for i in 0..<sources.count {
                                        tuple.append(queues[i][heads[i]])
                                        heads[i] += 1
                                        if heads[i] == queues[i].count {
                                            queues[i].removeAll(keepingCapacity: true)
                                            heads[i] = 0
                                        }
                                    }
                                    gate.emit(.next(tuple))
                                    if (0..<sources.count).contains(where: { completed[$0] && available($0) == 0 }) {
                                        gate.emit(.completed)
                                    }
                                }
                            case .error(let error): gate.emit(.error(error))
                            case .completed:
                                completed[index] = true
                                if available(index) == 0 { gate.emit(.completed) }
                            }
                        }
                    })
            }
        }
    }

    /// ``zip(_:)-(_)`` of two sources, combined by `resultSelector`.
    @inlinable
    public static func zip<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, Never>
        return Observable<T>.zip([a.asObservable().map(T.a), b.asObservable().map(T.b)])
            .map { try resultSelector($0[0].a!, $0[1].b!) }
    }

    /// ``zip(_:)-(_)`` of three sources, combined by `resultSelector`.
    @inlinable
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, C.Element>
        return Observable<T>.zip([a.asObservable().map(T.a), b.asObservable().map(T.b), c.asObservable().map(T.c)])
            .map { try resultSelector($0[0].a!, $0[1].b!, $0[2].c!) }
    }

    /// ``zip(_:_:resultSelector:)`` as a tuple.
    @inlinable
    public static func zip<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<(A.Element, B.Element)>
    where Element == (A.Element, B.Element) {
        zip(a, b) { ($0, $1) }
    }
}

extension ObservableType {
    /// Pairs with the n-th value of `other`; see ``Observable/zip(_:_:resultSelector:)``.
    @inlinable
    public func zip<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        Observable.zip(self, other, resultSelector: resultSelector)
    }
}

extension Observable {
    /// The n-th values of every observable in `sources`, combined by `resultSelector` (RxSwift
    /// `zip(_:resultSelector:)`).
    @inlinable
    public static func zip<S: ObservableType>(
        _ sources: [S], resultSelector: @escaping ([S.Element]) throws -> Element
    ) -> Observable<Element> {
        Observable<S.Element>.zip(sources).map(resultSelector)
    }
}
