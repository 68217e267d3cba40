extension Observable {
    /// Mirrors the first source to deliver any event (value, error or completion) and
    /// unsubscribes from the others (RxJS `race`).
    @inlinable
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

extension ObservableType {
    /// Mirrors whichever of this stream and `other` delivers an event first.
    @inlinable
    public func amb<Other: ObservableType>(_ other: Other) -> Observable<Element> where Other.Element == Element {
        Observable.amb([asObservable(), other.asObservable()])
    }
}
