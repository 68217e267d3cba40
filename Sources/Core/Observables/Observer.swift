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
    // `handler` is immutable; `stopped` is the only state shared between threads (a dispose
    // racing with delivery), and `upstream` guards itself.
    // First stored property: see InlineAtomic.swift.
    @usableFromInline var stoppedStorage = Int.AtomicRepresentation(0)
    @usableFromInline let handler: (Event<Element>) -> Void
    @usableFromInline let upstream = SingleAssignmentDisposable()
    // measured (inline atomics): see InlineAtomic.swift.
    @inlinable var stopped: UnsafeAtomic<Int> { inlineAtomic(self, of: Int.self) }

    /// Whether the state is where ``inlineAtomic(_:of:)`` looks.
    var layoutHolds: Bool { isFirstStoredProperty(of: self, &stoppedStorage) }

    @inlinable
    package init(_ handler: @escaping (Event<Element>) -> Void) {
        self.handler = handler
        assert(isFirstStoredProperty(of: self, &stoppedStorage))
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
            upstream.dispose()
        }
    }

    /// Links the resources this subscription holds; set once, before or while producing.
    @inlinable
    package func setUpstream(_ disposable: any Disposable) { upstream.set(disposable) }

    public func dispose() {
        stopped.store(1, ordering: .releasing)
        upstream.dispose()
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
