extension ObservableType where Element: Equatable {
    /// Emits whether this stream and `other` emit the same values in the same order: `false`
    /// and completes as soon as they differ (a different value, or one ending while the other
    /// still has values), `true` when both complete alike (RxJS `sequenceEqual`). An error from
    /// either ends the stream.
    @inlinable
    public func sequenceEqual<Other: ObservableType>(_ other: Other) -> Observable<Bool> where Other.Element == Element {
        let sources = [asObservable(), other.asObservable()]
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var pending: [[Element]] = [[], []]
            var done = [false, false]
            func finish(_ equal: Bool) {
                gate.emit(.next(equal))
                gate.emit(.completed)
            }
            for side in 0..<2 {
                let otherSide = 1 - side
                resources.insert(
                    sources[side].subscribe { event in
                        gate.locked {
                            switch event {
                            case .next(let value):
                                if pending[otherSide].isEmpty {
                                    if done[otherSide] { return finish(false) }
                                    pending[side].append(value)
                                } else if pending[otherSide].removeFirst() != value {
                                    finish(false)
                                }
                            case .error(let error): gate.emit(.error(error))
                            case .completed:
                                done[side] = true
                                if !pending[side].isEmpty && done[otherSide] { return finish(false) }
                                if done[otherSide] {
                                    finish(pending[0].isEmpty && pending[1].isEmpty)
                                } else if !pending[otherSide].isEmpty {
                                    finish(false)
                                }
                            }
                        }
                    })
            }
        }
    }
}
