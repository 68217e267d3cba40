/// When a shared source starts over, in `share(resetOnError:resetOnComplete:resetOnRefCountZero:)`:
/// at once, never, or once a notifier emits, as RxJS 7's `share` takes `true`, `false` or a
/// function returning a notifier.
///
/// ```swift
/// // Stay connected for two seconds after the last subscriber leaves; one arriving within them
/// // joins the same subscription.
/// let shared = source.share(resetOnRefCountZero: .when { Observable<Int>.timer(.seconds(2), scheduler: scheduler) })
/// ```
public struct ShareReset<Trigger> {
    enum Kind {
        case immediately
        case never
        case when((Trigger) -> Observable<Void>)
    }
    let kind: Kind

    /// Starts over at once.
    public static var immediately: ShareReset { ShareReset(kind: .immediately) }
    /// Never starts over.
    public static var never: ShareReset { ShareReset(kind: .never) }

    /// Starts over when the observable `notifier` returns first emits a value (its completion
    /// or error does not count). A subscriber that arrives before then cancels a pending reset
    /// on reaching zero subscribers and joins the running subscription; after an error or a
    /// completion it gets that end at once, until the reset.
    public static func when<O: ObservableType>(_ notifier: @escaping (Trigger) -> O) -> ShareReset {
        ShareReset(kind: .when { trigger in notifier(trigger).asObservable().map { _ in () } })
    }

    init(kind: Kind) { self.kind = kind }

    init(_ resets: Bool) { kind = resets ? .immediately : .never }
}

extension ObservableType {
    /// Shares one subscription to the source among all current subscribers, with RxJS 7
    /// `share({ resetOnError, resetOnComplete, resetOnRefCountZero })`'s choices of when to start
    /// over:
    ///
    /// - `resetOnError` / `resetOnComplete`: when the source fails / completes, the next
    ///   subscriber subscribes to the source again (`true`), or gets that terminal event at once
    ///   without a new subscription (`false`).
    /// - `resetOnRefCountZero`: when the last subscriber leaves, the source is unsubscribed and the
    ///   next subscriber starts over (`true`), or the source stays subscribed and later
    ///   subscribers join it (`false`).
    ///
    /// With every option `true` (the defaults) this is ``share(replay:)`` with no replay. To start
    /// over when a notifier emits, pass ``ShareReset`` values instead.
    public func share(resetOnError: Bool = true, resetOnComplete: Bool = true, resetOnRefCountZero: Bool = true) -> Observable<Element> {
        share(
            resetOnError: ShareReset(resetOnError), resetOnComplete: ShareReset(resetOnComplete),
            resetOnRefCountZero: ShareReset(resetOnRefCountZero))
    }

    /// Shares one subscription to the source among all current subscribers, starting over as
    /// each ``ShareReset`` says: at once, never, or when its notifier emits (RxJS 7's
    /// `share({ resetOnError: (error) => notifier, … })`). A pending reset on reaching zero
    /// subscribers is cancelled by a subscriber that arrives before the notifier emits.
    public func share(
        resetOnError: ShareReset<any Error>, resetOnComplete: ShareReset<Void> = .immediately,
        resetOnRefCountZero: ShareReset<Void> = .immediately
    ) -> Observable<Element> {
        let shared = ResettableShare(
            source: asObservable(), resetOnError: resetOnError, resetOnComplete: resetOnComplete,
            resetOnRefCountZero: resetOnRefCountZero)
        return Observable { downstream in shared.subscribe(downstream) }
    }

    /// `share(resetOnError:resetOnComplete:resetOnRefCountZero:)` with ``ShareReset`` values,
    /// resetting at once on an error.
    public func share(resetOnComplete: ShareReset<Void> = .immediately, resetOnRefCountZero: ShareReset<Void>) -> Observable<Element> {
        share(resetOnError: .immediately, resetOnComplete: resetOnComplete, resetOnRefCountZero: resetOnRefCountZero)
    }
}

/// The state of `share(resetOnError:resetOnComplete:resetOnRefCountZero:)`: one subject and one
/// source connection at a time, guarded by `lock`; subscribers, the source and notifiers call in
/// from any thread. Mirrors RxJS 7's `share`: a pending reset is a notifier subscription.
final class ResettableShare<Element>: @unchecked Sendable {
    private let source: Observable<Element>
    private let resetOnError: ShareReset<any Error>
    private let resetOnComplete: ShareReset<Void>
    private let resetOnRefCountZero: ShareReset<Void>
    private let lock = Lock()
    private var subject: PublishSubject<Element>?
    private var connection: SingleAssignmentDisposable?
    private var subscribers = 0
    /// The source ended and the subject was kept: it replays the end, nothing reconnects, until
    /// a reset.
    private var ended = false
    /// A reset waiting for its notifier, and its number (a notifier that fires after being
    /// cancelled finds another number and does nothing).
    private var pending: (any Disposable)?
    private var pendingNumber = 0

    init(
        source: Observable<Element>, resetOnError: ShareReset<any Error>, resetOnComplete: ShareReset<Void>,
        resetOnRefCountZero: ShareReset<Void>
    ) {
        self.source = source
        self.resetOnError = resetOnError
        self.resetOnComplete = resetOnComplete
        self.resetOnRefCountZero = resetOnRefCountZero
    }

    func subscribe(_ downstream: Observer<Element>) {
        let (subject, connect, cancelled): (PublishSubject<Element>, SingleAssignmentDisposable?, (any Disposable)?) = lock.withLock {
            subscribers += 1
            // A subscriber arriving while a reset on zero subscribers waits cancels it.
            let cancelled = ended ? nil : takePending()
            let subject = self.subject ?? PublishSubject<Element>()
            self.subject = subject
            guard connection == nil, !ended else { return (subject, nil, cancelled) }
            let fresh = SingleAssignmentDisposable()
            connection = fresh
            return (subject, fresh, cancelled)
        }
        cancelled?.dispose()
        let subscription = subject.subscribe(downstream.on)
        downstream.setUpstream(AnonymousDisposable { [self] in leave(subscription) })
        guard let connect else { return }
        connect.set(source.subscribe { [self] event in sourceSent(event, connection: connect, subject: subject) })
    }

    private func leave(_ subscription: any Disposable) {
        subscription.dispose()
        let zero: Bool = lock.withLock {
            subscribers -= 1
            return subscribers == 0 && !ended && connection != nil
        }
        guard zero else { return }
        schedule(resetOnRefCountZero, with: ()) { [self] in resetAndUnsubscribe() }
    }

    private func sourceSent(_ event: Event<Element>, connection connect: SingleAssignmentDisposable, subject: PublishSubject<Element>) {
        if event.isTerminal {
            let cancelled: (any Disposable)?? = lock.withLock {
                guard self.connection === connect else { return nil }
                ended = true
                return .some(takePending())
            }
            if let cancelled {
                cancelled?.dispose()
                // Reset (at once) before passing the end on, so a subscriber arriving from its
                // handler starts over.
                if let error = event.error {
                    schedule(resetOnError, with: error) { [self] in reset(connection: connect) }
                } else {
                    schedule(resetOnComplete, with: ()) { [self] in reset(connection: connect) }
                }
            }
        }
        subject.on(event)
    }

    /// Runs `reset` at once, never, or when the notifier emits (cancellable meanwhile).
    private func schedule<Trigger>(_ policy: ShareReset<Trigger>, with trigger: Trigger, _ reset: @escaping () -> Void) {
        switch policy.kind {
        case .immediately: reset()
        case .never: break
        case .when(let notifier):
            let subscription = SingleAssignmentDisposable()
            let number: Int = lock.withLock {
                pendingNumber += 1
                pending = subscription
                return pendingNumber
            }
            subscription.set(
                notifier(trigger).subscribe { [self] event in
                    guard case .next = event else { return }
                    let current: Bool = lock.withLock {
                        guard pendingNumber == number, pending != nil else { return false }
                        pending = nil
                        return true
                    }
                    subscription.dispose()
                    if current { reset() }
                })
        }
    }

    /// The pending reset, taken (the caller disposes it outside the lock). Call under `lock`.
    private func takePending() -> (any Disposable)? {
        defer {
            pending = nil
            pendingNumber += 1
        }
        return pending
    }

    /// Forgets the subject and the connection of a source that ended: the next subscriber
    /// starts over.
    private func reset(connection connect: SingleAssignmentDisposable) {
        lock.withLock {
            guard connection === connect else { return }
            connection = nil
            subject = nil
            ended = false
        }
    }

    /// Unsubscribes from the source and forgets the subject (no subscriber is left).
    private func resetAndUnsubscribe() {
        let toDispose: SingleAssignmentDisposable? = lock.withLock {
            guard subscribers == 0, !ended, let connection else { return nil }
            self.connection = nil
            self.subject = nil
            return connection
        }
        toDispose?.dispose()
    }
}
