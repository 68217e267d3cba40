extension ObservableType {
    /// Emits arrays of `count` values; on completion a non-empty remainder is emitted too.
    @inlinable
    public func buffer(count: Int) -> Observable<[Element]> {
        precondition(count > 0, "buffer(count:) needs a positive count")
        return lift { observer in
            let buffer = SerialState([Element]())
            return { event in
                switch event {
                case .next(let value):
                    buffer.value.append(value)
                    if buffer.value.count == count {
                        let full = buffer.value
                        buffer.value = []
                        observer.onNext(full)
                    }
                case .error(let error): observer.onError(error)
                case .completed:
                    if !buffer.value.isEmpty { observer.onNext(buffer.value) }
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits arrays of `count` values, starting a new array every `skip` values (RxJS
    /// `bufferCount(count, every)`): overlapping when `skip < count`, with gaps when larger.
    /// On completion every open, non-empty array is emitted, oldest first.
    @inlinable
    public func buffer(count: Int, skip: Int) -> Observable<[Element]> {
        precondition(count > 0 && skip > 0, "buffer(count:skip:) needs a positive count and skip")
        return lift { observer in
            var open: [[Element]] = []
            var seen = 0
            return { event in
                switch event {
                case .next(let value):
                    if seen % skip == 0 { open.append([]) }
                    seen += 1
                    for i in open.indices { open[i].append(value) }
                    if let first = open.first, first.count == count {
                        open.removeFirst()
                        observer.onNext(first)
                    }
                case .error(let error): observer.onError(error)
                case .completed:
                    for buffer in open where !buffer.isEmpty { observer.onNext(buffer) }
                    observer.onCompleted()
                }
            }
        }
    }

    /// Emits the values collected in each `timeSpan` window (an empty array for a silent
    /// window, as RxJS's `bufferTime`), or earlier once `count` values are collected, which
    /// starts a new window. On completion the current buffer is emitted, then completion.
    @inlinable
    public func buffer(timeSpan: Duration, count: Int = .max, scheduler: any Scheduler) -> Observable<[Element]> {
        precondition(count > 0, "buffer(timeSpan:count:) needs a positive count")
        let source = asObservable()
        return Observable.composite { downstream, resources in
            let gate = Gate(downstream)
            let timer = TimerSlot(gate, on: scheduler)
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
}
