public import Atomics

/// Something that receives events.
public protocol ObserverType<Element> {
    /// The type of the values received.
    associatedtype Element
    /// Delivers one event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Delivers a value.
    @inlinable public func onNext(_ element: Element) { on(.next(element)) }
    /// Delivers completion.
    @inlinable public func onCompleted() { on(.completed) }
    /// Delivers an error.
    @inlinable public func onError(_ error: any Error) { on(.error(error)) }
}

/// The observer handed to an observable's subscribe logic; the one place the event grammar is
/// enforced.
///
/// It drops everything after the first terminal event and everything after `dispose()`, and
/// disposes the subscription's upstream once a terminal event has been delivered. It is also
/// the subscription's ``Disposable``: disposing it stops delivery at once and releases the
/// upstream.
public final class Observer<Element>: ObserverType, Disposable, @unchecked Sendable {
    // `handler` is immutable. Two atomic words, inline: `stopped` (the only state delivery
    // reads) and the upstream's state; `current` is written only by `setUpstream` while the
    // upstream state is `empty` (then published by a releasing exchange) and read only by
    // whoever moves it from `assigned` to `disposed` (after an acquiring one): never by two
    // threads at once. The upstream holder was a `SingleAssignmentDisposable` of its own, an
    // allocation per subscription.
    // First stored property: see InlineAtomic.swift.
    @usableFromInline var words = (stopped: Int.AtomicRepresentation(0), upstream: Int.AtomicRepresentation(0))
    @usableFromInline let handler: (Event<Element>) -> Void
    var current: (any Disposable)?
    // measured (inline atomics): see InlineAtomic.swift.
    @inlinable var stopped: UnsafeAtomic<Int> { inlineAtomic(self, of: Int.self) }
    // measured: the upstream holder inline (its own word, so that delivery reads `stopped` as
    // before): flatMap and flatMapLatest 5 -> 4 allocations per inner (make bench-allocs), the
    // 10,000,000-event chain 0.99-1.01x, flatMapLatest 0.97x (A/B, release, min of 7, session
    // 32). One word holding both states had made the chain 1.14-1.18x (sessions 28 and 32).
    var upstreamState: UnsafeAtomic<Int> {
        UnsafeAtomic(at: firstStoredProperty(of: self, as: Int.AtomicRepresentation.self) + 1)
    }
    private static var empty: Int { 0 }
    private static var assigned: Int { 1 }
    private static var disposed: Int { 2 }

    /// Whether the state is where ``inlineAtomic(_:of:)`` looks, the upstream's word right after.
    var layoutHolds: Bool {
        typealias Words = (stopped: UnsafeAtomic<Int>.Storage, upstream: UnsafeAtomic<Int>.Storage)
        return isFirstStoredProperty(of: self, &words)
            && MemoryLayout<Words>.offset(of: \Words.upstream) == MemoryLayout<UnsafeAtomic<Int>.Storage>.stride
    }

    @inlinable
    package init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
        assert(isFirstStoredProperty(of: self, &words))
    }

    /// Whether the subscription is over: a terminal event went through or it was disposed.
    /// Synchronous producers check this to stop early.
    @inlinable public var isDisposed: Bool { stopped.load(ordering: .acquiring) != 0 }

    @inlinable
    public func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if stopped.load(ordering: .acquiring) != 0 { return }
            handler(event)
        case .error, .completed:
            if stopped.exchange(1, ordering: .acquiringAndReleasing) != 0 { return }
            handler(event)
            disposeUpstream()
        }
    }

    /// Links the resources this subscription holds; set once, before or while producing.
    @usableFromInline
    package func setUpstream(_ disposable: any Disposable) {
        let before = upstreamState.load(ordering: .acquiring)
        precondition(before != Self.assigned, "Observer.setUpstream(_:) called twice")
        if before == Self.disposed { return disposable.dispose() }
        current = disposable
        let (exchanged, found) = upstreamState.compareExchange(
            expected: Self.empty, desired: Self.assigned, ordering: .acquiringAndReleasing)
        if exchanged { return }
        precondition(found == Self.disposed, "Observer.setUpstream(_:) called twice")
        // Disposed meanwhile, before it could see `current`.
        current = nil
        disposable.dispose()
    }

    @usableFromInline
    func disposeUpstream() {
        guard upstreamState.exchange(Self.disposed, ordering: .acquiringAndReleasing) == Self.assigned else { return }
        // Moved out, not copied: an existential's copy goes through its type's value witnesses.
        current.take()?.dispose()
    }

    public func dispose() {
        stopped.store(1, ordering: .releasing)
        disposeUpstream()
    }
}

/// An observer made of a closure.
public struct AnyObserver<Element>: ObserverType {
    private let handler: (Event<Element>) -> Void

    /// Wraps a closure.
    public init(_ handler: @escaping (Event<Element>) -> Void) { self.handler = handler }

    /// Wraps another observer.
    public init<O: ObserverType>(_ observer: O) where O.Element == Element {
        self.handler = observer.on
    }

    public func on(_ event: Event<Element>) { handler(event) }
}
