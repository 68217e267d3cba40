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
    // `handler` is immutable. The one atomic word holds the observer's state and its upstream's
    // (a dispose racing with delivery or with `setUpstream`); `current` is written only by
    // `setUpstream` while no `upstreamAssigned` or `upstreamDisposed` bit is set (then published
    // by a releasing exchange) and read only by whoever sets `upstreamDisposed` over
    // `upstreamAssigned` (after an acquiring one): never by two threads at once. The upstream
    // holder is inline, where a `SingleAssignmentDisposable` of its own was an allocation per
    // subscription (a 10-event test 29 → 27 allocations, `flatMap` 5 → 4 per inner).
    // First stored property: see InlineAtomic.swift.
    @usableFromInline var stateStorage = Int.AtomicRepresentation(0)
    @usableFromInline let handler: (Event<Element>) -> Void
    // Checked: unchecked measured 0.96x for flatMap, 1.01x for the 10-event test, as much as the
    // parse baseline moved in the same run (A/B, release, min of 9, session 32): within the noise.
    @usableFromInline var current: (any Disposable)?
    // measured (inline atomics): see InlineAtomic.swift.
    @inlinable var state: UnsafeAtomic<Int> { inlineAtomic(self, of: Int.self) }
    /// A terminal event went through or the observer was disposed: nothing more is delivered.
    @inlinable static var stopped: Int { 1 }
    /// `current` holds the upstream.
    @inlinable static var upstreamAssigned: Int { 2 }
    /// The upstream was disposed (or will be, the moment it is set).
    @inlinable static var upstreamDisposed: Int { 4 }

    /// Whether the state is where ``inlineAtomic(_:of:)`` looks.
    var layoutHolds: Bool { isFirstStoredProperty(of: self, &stateStorage) }

    @inlinable
    package init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
        assert(isFirstStoredProperty(of: self, &stateStorage))
    }

    /// Whether the subscription is over: a terminal event went through or it was disposed.
    /// Synchronous producers check this to stop early.
    @inlinable public var isDisposed: Bool { state.load(ordering: .acquiring) & Self.stopped != 0 }

    @inlinable
    public func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if state.load(ordering: .acquiring) & Self.stopped != 0 { return }
            handler(event)
        case .error, .completed:
            if state.loadThenBitwiseOr(with: Self.stopped, ordering: .acquiringAndReleasing) & Self.stopped != 0 { return }
            handler(event)
            disposeUpstream()
        }
    }

    /// Links the resources this subscription holds; set once, before or while producing.
    /// Disposed at once when the subscription is already over.
    @inlinable
    package func setUpstream(_ disposable: any Disposable) {
        var before = state.load(ordering: .acquiring)
        precondition(before & Self.upstreamAssigned == 0, "Observer.setUpstream(_:) called twice")
        if before & Self.upstreamDisposed != 0 { return disposable.dispose() }
        current = disposable
        while true {
            let (exchanged, found) = state.weakCompareExchange(
                expected: before, desired: before | Self.upstreamAssigned, ordering: .acquiringAndReleasing)
            if exchanged { return }
            precondition(found & Self.upstreamAssigned == 0, "Observer.setUpstream(_:) called twice")
            if found & Self.upstreamDisposed != 0 {
                // Disposed meanwhile, before it could see `current`.
                current = nil
                return disposable.dispose()
            }
            before = found  // only `stopped` changed
        }
    }

    @inlinable
    func disposeUpstream() {
        let before = state.loadThenBitwiseOr(with: Self.upstreamDisposed, ordering: .acquiringAndReleasing)
        guard before & (Self.upstreamAssigned | Self.upstreamDisposed) == Self.upstreamAssigned else { return }
        // Moved out, not copied: an existential's copy goes through its type's value witnesses.
        current.take()?.dispose()
    }

    public func dispose() {
        _ = state.loadThenBitwiseOr(with: Self.stopped, ordering: .releasing)
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
