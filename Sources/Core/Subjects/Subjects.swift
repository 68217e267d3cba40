/// Keeps the observers of a subject and replays its terminal event to late subscribers.
/// Observers are called outside the lock, in subscription order.
///
/// Each observer sits behind a ``Gate``: what a new subscriber is replayed is queued in its
/// gate before any sender can see it, so a value sent meanwhile on another thread is
/// delivered after the replay, never before it or at the same time.
@usableFromInline
final class SubjectCore<Element>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    // Parallel arrays: `send` takes `gates` as is (a buffer retain, no per-event copy or map).
    // Touched only under `lock`, never in overlapping accesses.
    // measured (with the gates' buffers): subject chain 127 → 83 ns/event (484b502, A/B, release).
    @exclusivity(unchecked) private var keys: [UInt64] = []
    @exclusivity(unchecked) @usableFromInline var gates: [Gate<Element>] = []
    @exclusivity(unchecked) private var nextKey: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var terminal: Event<Element>?

    var hasObservers: Bool { lock.withLock { !gates.isEmpty } }

    /// Adds `observer` unless the subject has terminated; `replay` runs under the lock and
    /// returns events to deliver first (for behavior and replay subjects).
    func add(_ observer: Observer<Element>, replay: () -> [Event<Element>]) {
        let gate = Gate(observer)
        let key: UInt64? = lock.withLock {
            let replayed = replay()
            if let terminal {
                gate.enqueue(replayed + [terminal])
                return nil
            }
            gate.enqueue(replayed)
            nextKey += 1
            keys.append(nextKey)
            gates.append(gate)
            return nextKey
        }
        if let key {
            observer.setUpstream(AnonymousDisposable { [weak self] in self?.remove(key) })
        }
        gate.drain()
    }

    private func remove(_ key: UInt64) {
        lock.withLock {
            guard let index = keys.firstIndex(of: key) else { return }
            keys.remove(at: index)
            gates.remove(at: index)
        }
    }

    /// Sends `event` to every current observer; `record` runs under the lock first.
    @inlinable
    func send(_ event: Event<Element>, record: (Event<Element>) -> Void = { _ in }) {
        lock.lock()
        if terminal != nil { return lock.unlock() }
        record(event)
        let targets = gates
        if event.isTerminal { end(with: event) }
        lock.unlock()
        for gate in targets { gate.send(event) }
    }

    /// Under the lock: keeps the terminal event and drops every observer.
    @usableFromInline func end(with event: Event<Element>) {
        terminal = event
        keys = []
        gates = []
    }
}

/// A hot stream that forwards what it is sent to its current subscribers. A late subscriber
/// after termination receives the terminal event only.
public final class PublishSubject<Element>: ObservableType, ObserverType, @unchecked Sendable {
    @usableFromInline let core = SubjectCore<Element>()

    /// Creates a subject with no subscribers.
    public init() {}

    /// Whether anybody is subscribed.
    public var hasObservers: Bool { core.hasObservers }

    @inlinable public func on(_ event: Event<Element>) { core.send(event) }

    public func asObservable() -> Observable<Element> {
        Observable { [core] observer in core.add(observer) { [] } }
    }
}

/// A subject that holds a current value, delivered first to every new subscriber.
public final class BehaviorSubject<Element>: ObservableType, ObserverType, @unchecked Sendable {
    private let core = SubjectCore<Element>()
    private var current: Element

    /// Creates a subject holding `value`.
    public init(value: Element) { current = value }

    /// The latest value.
    public var value: Element { core.lock.withLock { current } }

    public func on(_ event: Event<Element>) {
        core.send(event) { event in
            if case .next(let value) = event { current = value }
        }
    }

    public func asObservable() -> Observable<Element> {
        Observable { [self] observer in
            core.add(observer) { core.terminal == nil ? [.next(current)] : [] }
        }
    }
}

/// A subject that replays up to `bufferSize` of its latest values to every new subscriber,
/// and its terminal event after them.
public final class ReplaySubject<Element>: ObservableType, ObserverType, @unchecked Sendable {
    private let core = SubjectCore<Element>()
    private let bufferSize: Int
    private var buffer: [Element] = []

    /// Creates a subject replaying at most `bufferSize` values (`.max`: all of them).
    public init(bufferSize: Int) {
        precondition(bufferSize >= 0, "ReplaySubject needs a non-negative buffer size")
        self.bufferSize = bufferSize
    }

    public func on(_ event: Event<Element>) {
        core.send(event) { event in
            guard case .next(let value) = event, bufferSize > 0 else { return }
            buffer.append(value)
            if buffer.count > bufferSize { buffer.removeFirst(buffer.count - bufferSize) }
        }
    }

    public func asObservable() -> Observable<Element> {
        Observable { [self] observer in
            core.add(observer) { buffer.map { .next($0) } }
        }
    }
}
