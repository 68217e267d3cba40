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
    // `handler` is immutable. One atomic word is the state shared between threads (a dispose
    // racing with delivery, or with `setUpstream`): `stoppedBit`, `upstreamSetBit`,
    // `upstreamDisposedBit`. `upstream` is written only by `setUpstream` while the set bit is
    // clear (then published by a releasing exchange), and taken only by whoever sets the
    // disposed bit after an acquiring read of the set bit: never by two threads at once. (It was a
    // `SingleAssignmentDisposable` of its own: one allocation more per subscription, issue 70.)
    // First stored property: see InlineAtomic.swift.
    @usableFromInline var stateStorage = Int.AtomicRepresentation(0)
    @usableFromInline let handler: (Event<Element>) -> Void
    @usableFromInline var upstream: (any Disposable)?
    // measured (inline atomics): see InlineAtomic.swift.
    @inlinable var state: UnsafeAtomic<Int> { inlineAtomic(self, of: Int.self) }
    @inlinable static var stoppedBit: Int { 1 }
    @inlinable static var upstreamSetBit: Int { 2 }
    @inlinable static var upstreamDisposedBit: Int { 4 }

    /// Whether the state is where ``inlineAtomic(_:of:)`` looks.
    var layoutHolds: Bool { isFirstStoredProperty(of: self, &stateStorage) }

    @inlinable
    init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
        assert(isFirstStoredProperty(of: self, &stateStorage))
    }

    /// Whether the subscription is over: a terminal event went through or it was disposed.
    /// Synchronous producers check this to stop early.
    @inlinable public var isDisposed: Bool { state.load(ordering: .acquiring) & Self.stoppedBit != 0 }

    @inlinable
    public func on(_ event: Event<Element>) {
        switch event {
        case .next:
            if state.load(ordering: .acquiring) & Self.stoppedBit != 0 { return }
            handler(event)
        case .error, .completed:
            if state.loadThenBitwiseOr(with: Self.stoppedBit, ordering: .acquiringAndReleasing) & Self.stoppedBit != 0 { return }
            handler(event)
            release(setting: Self.upstreamDisposedBit)
        }
    }

    /// Links the resources this subscription holds; set once, before or while producing.
    @inlinable
    package func setUpstream(_ disposable: any Disposable) {
        var before = state.load(ordering: .acquiring)
        precondition(before & Self.upstreamSetBit == 0, "an observer's upstream is set once")
        if before & Self.upstreamDisposedBit != 0 { return disposable.dispose() }
        upstream = disposable
        while true {
            let (exchanged, found) = state.compareExchange(
                expected: before, desired: before | Self.upstreamSetBit, ordering: .acquiringAndReleasing)
            if exchanged { return }
            if found & Self.upstreamDisposedBit != 0 {
                // Disposed meanwhile, before it could see `upstream`.
                upstream = nil
                return disposable.dispose()
            }
            before = found  // only the stopped bit moved
        }
    }

    /// Sets `bits` (the upstream's disposed bit among them) and disposes the upstream if this
    /// call is the one that found it set and not yet disposed.
    @usableFromInline
    func release(setting bits: Int) {
        let before = state.loadThenBitwiseOr(with: bits, ordering: .acquiringAndReleasing)
        guard before & (Self.upstreamSetBit | Self.upstreamDisposedBit) == Self.upstreamSetBit else { return }
        // Moved out, not copied: an existential's copy goes through its type's value witnesses.
        upstream.take()?.dispose()
    }

    public func dispose() { release(setting: Self.stoppedBit | Self.upstreamDisposedBit) }
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
