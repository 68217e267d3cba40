extension ObservableType {
    /// Emits the values collected since the last emission (possibly none) whenever `boundary`
    /// emits, and the rest when the source completes (RxJS 7 `buffer(closingNotifier)`). The
    /// boundary's completion changes nothing; an error from either side ends the stream.
    @inlinable
    public func buffer<Boundary: ObservableType>(_ boundary: Boundary) -> Observable<[Element]> {
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            var collected: [Element] = []
            resources.insert(
                boundary.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next:
                            gate.emit(.next(collected))
                            collected = []
                        case .error(let error): gate.emit(.error(error))
                        case .completed: break
                        }
                    }
                })
            resources.insert(
                source.subscribe { event in
                    gate.locked {
                        switch event {
                        case .next(let value): collected.append(value)
                        case .error(let error): gate.emit(.error(error))
                        case .completed:
                            gate.emit(.next(collected))
                            gate.emit(.completed)
                        }
                    }
                })
        }
    }
}
