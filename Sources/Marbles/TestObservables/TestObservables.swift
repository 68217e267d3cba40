extension TestScheduler {
    /// A cold test observable: every subscription replays the diagram relative to its own
    /// subscription time. Frame-0 messages are scheduled too, not sent inside `subscribe`.
    public final class ColdObservable<Element>: ObservableType, TestObservableMessages {
        /// The diagram's messages, relative to a subscription.
        public let messages: [Recorded<Event<Element>>]
        /// One entry per subscription, in subscription order, in the scheduler's absolute time.
        ///
        /// (A plain read: each entry names the observable that logged it, which is how
        /// `expect(subscriptions:)` given this log learns whose it is.)
        public internal(set) var subscriptions: [SubscriptionLog] {
            get { Array(subscriptionLogs) }
            set { subscriptionLogs = SubscriptionLogs(newValue) }
        }
        // The scheduler's thread's: appended at each subscription, written at its end, read after
        // the run, never in overlapping accesses.
        // measured: checked again together with AsyncRun.progress, VirtualTimeScheduler's step
        // limit and a cold subscription's disposed flag, small and async tests took 1.02–1.05×
        // (A/B, clean release builds of both, min of 7); unchecked in 40fe785.
        @exclusivity(unchecked) @usableFromInline package var subscriptionLogs = SubscriptionLogs()
        /// Where the test made it, and the name it gave it, for its diagrams.
        @usableFromInline package let declaration: TestObservableDeclaration?
        @usableFromInline unowned let scheduler: TestScheduler
        /// Cold.
        @usableFromInline package var kind: MarbleDiagram.Kind { .cold }
        /// Whether the messages are in time order: each subscription then replays them as a chain
        /// (see ``MessageReplay``).
        @usableFromInline let inTimeOrder: Bool

        @inlinable
        init(messages: [Recorded<Event<Element>>], scheduler: TestScheduler, declaration: TestObservableDeclaration? = nil) {
            self.messages = messages
            self.scheduler = scheduler
            self.declaration = declaration
            self.inTimeOrder = areInTimeOrder(messages)
        }

        @inlinable
        public var erasedMessages: [Recorded<Event<RecordedValue>>] {
            messages.map { Recorded(time: $0.time, value: $0.value.map { .plain($0) }) }
        }

        @inlinable
        public func asObservable() -> Observable<Element> {
            Observable(producer: { [self] observer in _run(observer) })
        }

        /// Subscribes `observer`: a replay of the messages from now, logged. (Inner
        /// observables of `flatMap` and `flatMapLatest` are subscribed this way, with no
        /// ``Observable`` made for them.)
        @inlinable
        public func _run(_ observer: Observer<Element>) {
            let virtual = scheduler.virtual
            var log = SubscriptionLog(subscribed: virtual.now)
            log.owner = UInt(bitPattern: ObjectIdentifier(self))
            let logIndex = subscriptionLogs.count
            subscriptionLogs.append(log)
            let subscription = MessageReplay(
                messages: messages, receiver: observer, on: virtual, base: virtual.now, clampsNegative: true,
                inTimeOrder: inTimeOrder, log: (self, logIndex))
            observer.setUpstream(subscription)
            if !subscription.progress.disposed { subscription.scheduleAll() }
        }
    }
}

/// One replay of a test observable's messages: a cold observable's subscription (to its
/// observer; disposing it closes its entry in the observable's subscription log) or a hot
/// observable's run (to its subject). One object per subscription, where a subscription holding
/// its replay made two.
@usableFromInline
final class MessageReplay<Element, Receiver: ObserverType>: Disposable, @unchecked Sendable where Receiver.Element == Element {
    @usableFromInline let messages: [Recorded<Event<Element>>]
    /// `messages.count`, for `dispose()`: it runs unspecialized (called through `Disposable`),
    /// where the array's count looked the array type's metadata up.
    @usableFromInline let count: Int
    @usableFromInline let receiver: Receiver
    /// How many messages went out, whether a chain was cancelled, and whether a cold observable's
    /// subscription was disposed: read and written by every message, on the scheduler's thread,
    /// never in overlapping accesses.
    // measured (with MarbleExpectation.events): the checks were 11% of a 10-event test's samples
    // (perf, release); unchecked, the test went from 1.064× to 0.918× the time of 40fe785
    // (scripts/profile-ab.py, release, min of 7).
    @exclusivity(unchecked) @usableFromInline var progress = (sent: 0, stopped: false, disposed: false)
    /// Where the messages' times count from.
    @usableFromInline let base: Duration
    /// Whether a message's time may be negative and is then due at `base` (a cold observable's).
    @usableFromInline let clamps: Bool
    /// As a chain (in time order): the sequence number reserved for the first message (the
    /// n-th has `first + n`); `nil` out of order. Fixed when the replay is made, so that each
    /// message reads a constant.
    @usableFromInline let first: UInt64?
    /// Out of order: every message's action, scheduled at once.
    @usableFromInline var scheduled: [UInt64] = []
    /// The scheduler the messages run on, for the links of a chain, which run only as its
    /// actions (so while it lives). Kept here rather than captured by each link: a closure that
    /// captures only `self` needs no context of its own (one allocation a message less).
    // The scheduler outlives the replay's actions, which run only on it.
    // measured: see TestTaskExecutor.runtime.
    @usableFromInline unowned(unsafe) let virtual: VirtualTimeScheduler
    /// A cold observable's subscription: the observable, and its entry in the observable's log.
    /// The observable (whose scheduler owns `virtual`) is what a late dispose reaches first.
    @usableFromInline let log: (observable: TestScheduler.ColdObservable<Element>, index: Int)?

    /// A replay of `messages` from `base`. In time order (the common case) they form a chain:
    /// sequence numbers for all of them are taken now, so they order among other actions
    /// exactly as if all were scheduled now, but each is put in the heap only when the one
    /// before it runs (``scheduleAll()``): the heap stays small.
    @inlinable
    init(
        messages: [Recorded<Event<Element>>], receiver: Receiver, on virtual: VirtualTimeScheduler, base: Duration, clampsNegative: Bool,
        inTimeOrder: Bool, log: (observable: TestScheduler.ColdObservable<Element>, index: Int)? = nil
    ) {
        self.messages = messages
        self.count = messages.count
        self.log = log
        self.receiver = receiver
        self.virtual = virtual
        self.base = base
        // In time order only the first time can tell whether any is negative.
        clamps = clampsNegative && (!inTimeOrder || (messages.first.map { $0.time < .zero } ?? false))
        first = inTimeOrder && !messages.isEmpty ? virtual.reserveSequences(messages.count) : nil
    }

    @inlinable
    func send(_ position: Int) {
        progress.sent += 1
        receiver.on(messages[position].value)
    }

    /// When the message at `position` is due.
    @inlinable
    func due(_ position: Int) -> Duration {
        let time = messages[position].time
        return base + (clamps ? Swift.max(time, .zero) : time)
    }

    /// Schedules the messages at `base` plus their times (negative ones at `base` when
    /// clamped): the first link of a chain, or, out of order, each now. Actions capture the
    /// replay (and a position when out of order), not a message: a closure context of fixed
    /// layout, which unspecialized code need not look generic metadata up for.
    @inlinable
    func scheduleAll() {
        guard !messages.isEmpty else { return }
        if let first {
            virtual.enqueue(at: due(0), sequence: first) { self.sendChained() }
            return
        }
        scheduled.reserveCapacity(messages.count)
        virtual.reserve(additional: messages.count)
        for position in messages.indices {
            scheduled.append(virtual.enqueue(at: due(position)) { self.send(position) })
        }
    }

    /// Sends the next message of the chain and schedules the one after it.
    @inlinable
    func sendChained() {
        guard !progress.stopped else { return }
        let position = progress.sent
        let next = position + 1
        if next < messages.count {
            virtual.enqueue(at: due(next), sequence: first! &+ UInt64(next)) { self.sendChained() }
        }
        send(position)
    }

    /// A cold observable's subscription ends: its log entry closes, what is still to come is
    /// cancelled.
    @usableFromInline func dispose() {
        guard let log, !progress.disposed else { return }
        progress.disposed = true
        log.observable.subscriptionLogs[log.index].unsubscribed = log.observable.scheduler.now
        cancel(on: virtual)
    }

    /// Cancels what is still to come: the pending link of a chain, or every scheduled action.
    @inlinable
    func cancel(on virtual: VirtualTimeScheduler) {
        if let first {
            guard !progress.stopped, progress.sent < count else { return }
            progress.stopped = true
            virtual.cancel(first &+ UInt64(progress.sent))
        } else {
            for action in scheduled { virtual.cancel(action) }
        }
    }
}

extension TestScheduler {
    /// A hot test observable: its messages are scheduled once, when the scheduler's run starts,
    /// at absolute frames (`^` is the time the observable was created); subscribers receive only
    /// what happens while they are subscribed.
    public final class HotObservable<Element>: ObservableType, TestObservableMessages {
        /// The diagram's messages, relative to `^`.
        public let messages: [Recorded<Event<Element>>]
        /// One entry per subscription, in subscription order, in the scheduler's absolute time.
        ///
        /// (A plain read: each entry names the observable that logged it, which is how
        /// `expect(subscriptions:)` given this log learns whose it is.)
        public internal(set) var subscriptions: [SubscriptionLog] {
            get { Array(subscriptionLogs) }
            set { subscriptionLogs = SubscriptionLogs(newValue) }
        }
        // The scheduler's thread's: appended at each subscription, written at its end, read after
        // the run, never in overlapping accesses.
        // measured: checked again together with AsyncRun.progress, VirtualTimeScheduler's step
        // limit and a cold subscription's disposed flag, small and async tests took 1.02–1.05×
        // (A/B, clean release builds of both, min of 7); unchecked in 40fe785.
        @exclusivity(unchecked) @usableFromInline package var subscriptionLogs = SubscriptionLogs()
        /// Where the test made it, and the name it gave it, for its diagrams.
        @usableFromInline package let declaration: TestObservableDeclaration?
        @usableFromInline let subject = PublishSubject<Element>()
        @usableFromInline let origin: Duration
        @usableFromInline unowned let scheduler: TestScheduler
        /// Hot.
        @usableFromInline package var kind: MarbleDiagram.Kind { .hot }

        @inlinable
        init(messages: [Recorded<Event<Element>>], scheduler: TestScheduler, declaration: TestObservableDeclaration? = nil) {
            self.messages = messages
            self.scheduler = scheduler
            self.declaration = declaration
            self.origin = scheduler.now
        }

        @inlinable
        public var erasedMessages: [Recorded<Event<RecordedValue>>] {
            messages.map { Recorded(time: $0.time, value: $0.value.map { .plain($0) }) }
        }

        /// Schedules every message; the scheduler calls this at the start of its run.
        @inlinable
        func setUp() {
            let replay = MessageReplay(
                messages: messages, receiver: subject, on: scheduler.virtual, base: origin, clampsNegative: false,
                inTimeOrder: areInTimeOrder(messages))
            replay.scheduleAll()
        }

        @inlinable
        public func asObservable() -> Observable<Element> {
            Observable.create { [self] observer in
                let index = subscriptionLogs.count
                var log = SubscriptionLog(subscribed: scheduler.now)
                log.owner = UInt(bitPattern: ObjectIdentifier(self))
                subscriptionLogs.append(log)
                let subscription = subject.subscribe(observer)
                return Disposables.create { [self] in
                    subscriptionLogs[index].unsubscribed = scheduler.now
                    subscription.dispose()
                }
            }
        }
    }
}

extension TestScheduler {
    /// The events of an observable subscribed by ``TestScheduler/record(_:)``.
    public final class Recording<Element> {
        /// The events so far, relative to the time `record` was called.
        public internal(set) var events: [Recorded<Event<Element>>] = []
        var subscription: (any Disposable)?

        /// Stops recording.
        public func dispose() { subscription?.dispose() }
    }
}
