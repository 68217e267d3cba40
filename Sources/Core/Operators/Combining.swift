extension Observable {
    /// Emits an array of the latest value of every source whenever one of them emits, once all
    /// have emitted. Completes when all have completed, or at once when one completes without
    /// ever emitting (RxJS 7). An empty `sources` completes at once.
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

    /// Pairs the n-th values of every source. Completes as soon as a completed source has no
    /// buffered value left (RxJS 7). An empty `sources` completes at once.
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

    /// Mirrors the first source to deliver any event (value, error or completion) and
    /// unsubscribes from the others (RxJS `race`).
    public static func amb<S: ObservableType>(_ sources: [S]) -> Observable<Element> where S.Element == Element {
        let sources = sources.map { $0.asObservable() }
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var winner: Int?
            var subscriptions: [any Disposable] = []
            for (index, source) in sources.enumerated() {
                let holder = SingleAssignmentDisposable()
                let decided: Bool = gate.locked {
                    subscriptions.append(holder)
                    return winner != nil
                }
                if decided { break }
                resources.insert(holder)
                holder.set(
                    source.subscribe { event in
                        let losers: [any Disposable] = gate.locked {
                            if winner == nil {
                                winner = index
                                gate.emit(event)
                                return subscriptions.enumerated().filter { $0.offset != index }.map(\.element)
                            }
                            if winner == index { gate.emit(event) }
                            return []
                        }
                        for loser in losers { loser.dispose() }
                    })
            }
        }
    }
}

/// Tags values of two or three differently-typed sources so that the homogeneous
/// combinators can carry them.
private enum Tagged<A, B, C> {
    case a(A)
    case b(B)
    case c(C)
    var a: A? {
        if case .a(let v) = self { return v }
        return nil
    }
    var b: B? {
        if case .b(let v) = self { return v }
        return nil
    }
    var c: C? {
        if case .c(let v) = self { return v }
        return nil
    }
}

extension Observable {
    /// ``combineLatest(_:)-(_)`` of two sources, combined by `resultSelector`.
    public static func combineLatest<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, Never>
        return Observable<T>.combineLatest([a.asObservable().map(T.a), b.asObservable().map(T.b)])
            .map { try resultSelector($0[0].a!, $0[1].b!) }
    }

    /// ``combineLatest(_:)-(_)`` of three sources, combined by `resultSelector`.
    public static func combineLatest<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, C.Element>
        return Observable<T>.combineLatest([a.asObservable().map(T.a), b.asObservable().map(T.b), c.asObservable().map(T.c)])
            .map { try resultSelector($0[0].a!, $0[1].b!, $0[2].c!) }
    }

    /// ``zip(_:)-(_)`` of two sources, combined by `resultSelector`.
    public static func zip<A: ObservableType, B: ObservableType>(
        _ a: A, _ b: B, resultSelector: @escaping (A.Element, B.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, Never>
        return Observable<T>.zip([a.asObservable().map(T.a), b.asObservable().map(T.b)])
            .map { try resultSelector($0[0].a!, $0[1].b!) }
    }

    /// ``zip(_:)-(_)`` of three sources, combined by `resultSelector`.
    public static func zip<A: ObservableType, B: ObservableType, C: ObservableType>(
        _ a: A, _ b: B, _ c: C, resultSelector: @escaping (A.Element, B.Element, C.Element) throws -> Element
    ) -> Observable<Element> {
        typealias T = Tagged<A.Element, B.Element, C.Element>
        return Observable<T>.zip([a.asObservable().map(T.a), b.asObservable().map(T.b), c.asObservable().map(T.c)])
            .map { try resultSelector($0[0].a!, $0[1].b!, $0[2].c!) }
    }
}

extension Observable {
    /// ``combineLatest(_:_:resultSelector:)`` as a tuple.
    public static func combineLatest<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<(A.Element, B.Element)>
    where Element == (A.Element, B.Element) {
        combineLatest(a, b) { ($0, $1) }
    }

    /// ``zip(_:_:resultSelector:)`` as a tuple.
    public static func zip<A: ObservableType, B: ObservableType>(_ a: A, _ b: B) -> Observable<(A.Element, B.Element)>
    where Element == (A.Element, B.Element) {
        zip(a, b) { ($0, $1) }
    }
}

extension ObservableType {
    /// On each value, combines it with the latest value of `other`; values before `other` has
    /// emitted are dropped. Completes with this stream; `other`'s completion changes nothing,
    /// its error is forwarded.
    public func withLatestFrom<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        let source = asObservable()
        let other = other.asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var latest: Other.Element?
            resources.insert(
                other.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value): latest = value
                        case .error(let error): gate.emit(.error(error))
                        case .completed: break
                        }
                    }
                })
            resources.insert(
                source.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value):
                            guard let latest else { return }
                            do { gate.emit(.next(try resultSelector(value, latest))) } catch { gate.emit(.error(error)) }
                        case .error(let error): gate.emit(.error(error))
                        case .completed: gate.emit(.completed)
                        }
                    }
                })
        }
    }

    /// On each value, emits the latest value of `other`.
    public func withLatestFrom<Other: ObservableType>(_ other: Other) -> Observable<Other.Element> {
        withLatestFrom(other) { $1 }
    }

    /// Mirrors whichever of this stream and `other` delivers an event first.
    public func amb<Other: ObservableType>(_ other: Other) -> Observable<Element> where Other.Element == Element {
        Observable.amb([asObservable(), other.asObservable()])
    }

    /// Combines with the latest value of `other`; see ``Observable/combineLatest(_:_:resultSelector:)``.
    public func combineLatest<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        Observable.combineLatest(self, other, resultSelector: resultSelector)
    }

    /// Pairs with the n-th value of `other`; see ``Observable/zip(_:_:resultSelector:)``.
    public func zip<Other: ObservableType, Result>(
        _ other: Other, resultSelector: @escaping (Element, Other.Element) throws -> Result
    ) -> Observable<Result> {
        Observable.zip(self, other, resultSelector: resultSelector)
    }
}
