extension ObservableType {
    /// Transforms each value; an error thrown by `transform` ends the stream with that error.
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        asObservable().map(transform)
    }

    /// Transforms each value and drops the `nil` results.
    public func compactMap<Result>(_ transform: @escaping (Element) throws -> Result?) -> Observable<Result> {
        lift { observer in
            { event in
                switch event {
                case .next(let value):
                    do { if let mapped = try transform(value) { observer.onNext(mapped) } } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

    /// Emits each intermediate accumulation, starting from `seed`.
    @inlinable
    public func scan<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        asObservable().scan(seed, accumulator: accumulator)
    }

    /// Emits the final accumulation when the source completes (`seed` for an empty source).
    public func reduce<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        lift { observer in
            var state = seed
            return { event in
                switch event {
                case .next(let value):
                    do { state = try accumulator(state, value) } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed:
                    observer.onNext(state)
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits all values as one array when the source completes (an empty array for an empty
    /// source, as RxJS does).
    public func toArray() -> Observable<[Element]> {
        reduce([Element]()) { array, value in
            var array = array
            array.append(value)
            return array
        }
    }

    /// Emits `elements` synchronously on subscription, then the source's events.
    public func startWith(_ elements: Element...) -> Observable<Element> {
        Observable.from(elements).concat(asObservable())
    }

    /// Emits each value paired with the previous one; the first value only pairs with the second.
    public func pairwise() -> Observable<(Element, Element)> {
        lift { observer in
            var previous: Element?
            return { event in
                switch event {
                case .next(let value):
                    if let previous { observer.onNext((previous, value)) }
                    previous = value
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

    /// Emits arrays of `count` values; on completion a non-empty remainder is emitted too.
    public func buffer(count: Int) -> Observable<[Element]> {
        precondition(count > 0, "buffer(count:) needs a positive count")
        return lift { observer in
            var buffer: [Element] = []
            return { event in
                switch event {
                case .next(let value):
                    buffer.append(value)
                    if buffer.count == count {
                        let full = buffer
                        buffer = []
                        observer.onNext(full)
                    }
                case .error(let error): observer.onError(error)
                case .completed:
                    if !buffer.isEmpty { observer.onNext(buffer) }
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits the values collected in each `timeSpan` window (an empty array for a silent
    /// window, as RxJS's `bufferTime`), or earlier once `count` values are collected, which
    /// starts a new window. On completion the current buffer is emitted, then completion.
    public func buffer(timeSpan: Duration, count: Int = .max, scheduler: any Scheduler) -> Observable<[Element]> {
        precondition(count > 0, "buffer(timeSpan:count:) needs a positive count")
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = SerialDisposable()
            resources.insert(timer)
            var buffer: [Element] = []
            var window = 0
            // Timers are scheduled outside the lock: a scheduler may run them synchronously.
            func open(_ opened: Int?) {
                guard let current = opened else { return }
                gate.scheduleTimer(on: scheduler, after: timeSpan, in: timer, isCurrent: { current == window }) {
                    open(
                        gate.locked {
                            guard current == window else { return nil }
                            gate.emit(.next(buffer))
                            buffer = []
                            window += 1
                            return window
                        })
                }
            }
            open(0)
            resources.insert(
                source.subscribe { event in
                    open(
                        gate.locked {
                            switch event {
                            case .next(let value):
                                buffer.append(value)
                                guard buffer.count >= count else { return nil }
                                gate.emit(.next(buffer))
                                buffer = []
                                window += 1
                                return window
                            case .error(let error): gate.emit(.error(error))
                            case .completed:
                                gate.emit(.next(buffer))
                                gate.emit(.completed)
                            }
                            return nil
                        })
                })
        }
    }

    /// Turns every event into a value, then completes.
    public func materialize() -> Observable<Event<Element>> {
        lift { observer in
            { event in
                observer.onNext(event)
                if event.isTerminal { observer.onCompleted() }
            }
        }
    }
}

extension ObservableType {
    /// Turns materialized events back into a stream.
    public func dematerialize<Value>() -> Observable<Value> where Element == Event<Value> {
        lift { observer in
            { event in
                switch event {
                case .next(let inner): observer.on(inner)
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }
}

// The per-value hot path lives on the concrete class so that it specializes fully in the
// caller's module; the `ObservableType` versions forward here.
extension Observable {
    /// Transforms each value; an error thrown by `transform` ends the stream with that error.
    ///
    @inlinable
    public func map<Result>(_ transform: @escaping (Element) throws -> Result) -> Observable<Result> {
        lift { (observer: Observer<Result>) in
            { event in
                switch event {
                case .next(let value):
                    do { observer.onNext(try transform(value)) } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

    /// Emits each intermediate accumulation, starting from `seed`.
    @inlinable
    public func scan<State>(_ seed: State, accumulator: @escaping (State, Element) throws -> State) -> Observable<State> {
        lift { observer in
            var state = seed
            return { event in
                switch event {
                case .next(let value):
                    do {
                        state = try accumulator(state, value)
                        observer.onNext(state)
                    } catch { observer.onError(error) }
                case .error(let error): observer.onError(error)
                case .completed: observer.onCompleted()
                }
            }
        }
    }

}
