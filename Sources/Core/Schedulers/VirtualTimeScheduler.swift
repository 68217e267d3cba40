/// A scheduler whose clock moves only when told to: actions run in due-time order as time is
/// advanced, so timing-dependent code runs instantly and deterministically.
///
/// Actions live in a binary heap keyed by (due time, sequence number); the sequence number comes
/// from one counter at scheduling time, so actions due at the same time run first scheduled,
/// first run. Cancelling is lazy: a cancelled action stays in the heap and is skipped when it
/// reaches the top. `now` is set to an action's due time before the action runs.
///
/// Single-threaded by contract: schedule, advance and dispose from one thread (or under one
/// external lock).
///
/// ```swift
/// let scheduler = VirtualTimeScheduler()
/// var fired: [Duration] = []
/// scheduler.schedule(after: .seconds(2)) { fired.append(scheduler.now) }
/// try scheduler.advance(by: .seconds(5))   // fired == [.seconds(2)]
/// ```
public final class VirtualTimeScheduler: Scheduler {
    @usableFromInline
    struct Entry: Comparable {
        @usableFromInline let due: Int64  // nanoseconds since the epoch
        @usableFromInline let sequence: UInt64
        @usableFromInline let action: () -> Void

        @inlinable
        init(due: Int64, sequence: UInt64, action: consuming @escaping () -> Void) {
            self.due = due
            self.sequence = sequence
            self.action = action
        }

        @inlinable @inline(__always)
        static func < (a: Entry, b: Entry) -> Bool { precedes(a.due, a.sequence, b.due, b.sequence) }

        /// The heap's order: due time, then sequence number.
        @inlinable @inline(__always)
        static func precedes(_ aDue: Int64, _ aSequence: UInt64, _ bDue: Int64, _ bSequence: UInt64) -> Bool {
            aDue < bDue || (aDue == bDue && aSequence < bSequence)
        }
        @usableFromInline
        static func == (a: Entry, b: Entry) -> Bool { a.sequence == b.sequence }
    }

    /// The scheduler's state: its heap of actions, the last sequence number given out, the marks
    /// of cancelled actions not yet dropped, the time, and the step limit.
    @usableFromInline struct State {
        @usableFromInline var heap = BinaryHeap<Entry>()
        @usableFromInline var sequence: UInt64 = 0
        @usableFromInline var cancelled = Set<UInt64>()
        @usableFromInline var nowNanos: Int64
        var stepLimit: Int
    }

    // The scheduler is confined to one thread, and no access to its state overlaps another (no
    // action runs inside a heap operation).
    // measured: the exclusivity checks were about 10% of a step (484b502, A/B, release); the
    // step limit's, read once a drive: see TestScheduler.ColdObservable.subscriptionLogs.
    @exclusivity(unchecked) @usableFromInline var state: State

    /// What this scheduler's disposables point to: a strong reference costs a disposable less
    /// than a weak one to the scheduler (about 30 of 130 ns an action, measured), and the
    /// scheduler clears it when it goes, so a disposable that outlives it does nothing.
    @usableFromInline package let canceller = VirtualActionCanceller()

    /// Work runs at most this many actions per `run`/`advance` call before it throws
    /// ``RxError/stepLimitExceeded(steps:now:)``.
    public var stepLimit: Int {
        get { state.stepLimit }
        set { state.stepLimit = newValue }
    }

    /// Creates a scheduler at `initialClock` with the given step limit.
    public init(initialClock: Duration = .zero, stepLimit: Int = 10_000_000) {
        state = State(nowNanos: Self.nanos(initialClock), stepLimit: stepLimit)
        canceller.scheduler = self
    }

    deinit { canceller.scheduler = nil }

    /// The virtual time.
    public var now: Duration { .nanoseconds(state.nowNanos) }

    /// The virtual time in nanoseconds (what the virtual system clocks add to their base).
    @inlinable package var nowNanoseconds: Int64 { state.nowNanos }

    /// The number of actions waiting, cancelled ones not yet skipped included.
    public var pendingCount: Int { state.heap.count }

    /// The due time of the earliest action waiting, skipping cancelled ones.
    public var nextDueTime: Duration? {
        dropCancelledHead()
        return state.heap.withMin { .nanoseconds($0.due) }
    }

    @inlinable @inline(__always)
    package static func nanos(_ duration: Duration) -> Int64 { duration.clampedNanoseconds }

    // The three `schedule` methods are inlinable, down to the heap's insert: a caller who drops
    // the disposable (most do) does not pay for it, and the action moves into the heap without
    // a retain. Measured (with the owned-entry call in the run loop and the branch-free pop): 10³
    // actions went from 1.25–1.37× to 0.86–0.93× swift-collections' `Heap`.

    /// - Complexity: O(log n)
    @inlinable @discardableResult
    public func schedule(_ action: @escaping () -> Void) -> any Disposable {
        enqueue(at: state.nowNanos, action)
    }

    /// - Complexity: O(log n)
    @inlinable @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping () -> Void) -> any Disposable {
        enqueue(at: state.nowNanos &+ max(Self.nanos(delay), 0), action)
    }

    /// Schedules `action` at the absolute virtual time `time`. A time already past is kept as
    /// given, so it runs before anything due now (hot test messages at negative frames rely on
    /// this); `now` never moves backwards.
    ///
    /// - Complexity: O(log n)
    @inlinable @discardableResult
    public func schedule(at time: Duration, _ action: @escaping () -> Void) -> any Disposable {
        enqueue(at: Self.nanos(time), action)
    }

    /// Schedules `action` at the absolute virtual time `time` (kept as given when past, as in
    /// ``schedule(at:_:)``) and returns the number that ``cancel(_:)`` takes: for a caller
    /// that keeps many actions (a test observable's messages) without a disposable for each.
    @usableFromInline
    package func enqueue(at time: Duration, _ action: consuming @escaping () -> Void) -> UInt64 {
        insert(due: Self.nanos(time), action)
    }

    /// Takes `count` consecutive sequence numbers now, for actions scheduled later with
    /// ``enqueue(at:sequence:_:)``: they order among others as if scheduled now (same-time
    /// actions run in sequence order). A chain that schedules each action when the previous one
    /// runs (a test observable's messages) keeps the heap small and the order unchanged.
    /// - Returns: the first of them.
    @usableFromInline
    package func reserveSequences(_ count: Int) -> UInt64 {
        let first = state.sequence &+ 1
        state.sequence &+= UInt64(count)
        return first
    }

    /// Schedules `action` at `time` with a sequence number from ``reserveSequences(_:)``.
    @usableFromInline
    package func enqueue(at time: Duration, sequence reserved: UInt64, _ action: consuming @escaping () -> Void) {
        state.heap.insert(Entry(due: Self.nanos(time), sequence: reserved, action: action))
    }

    /// Makes room for `additional` more actions at once (a cold test observable schedules all
    /// its messages as it is subscribed).
    @usableFromInline
    package func reserve(additional: Int) { state.heap.reserve(additional: additional) }

    /// Drops every waiting action.
    public func cancelAll() {
        // Dropped actions are released after the heap is emptied, not during: releasing one may
        // run a deinit that cancels another action of this scheduler (a Combine timer's
        // `AnyCancellable`), which must not find the heap mid-change.
        let dropped = state.heap
        state.heap = BinaryHeap()
        state.cancelled.removeAll()
        withExtendedLifetime(dropped) {}
    }

    @inlinable @inline(__always)
    func enqueue(at due: Int64, _ action: @escaping () -> Void) -> any Disposable {
        VirtualActionDisposable(canceller: canceller, sequence: insert(due: due, action), due: due)
    }

    @inlinable @inline(__always)
    func insert(due: Int64, _ action: consuming @escaping () -> Void) -> UInt64 {
        state.sequence &+= 1
        state.heap.insert(Entry(due: due, sequence: state.sequence, action: action))
        return state.sequence
    }

    /// Schedules `action` `delay` nanoseconds from now (a negative delay means now) and returns
    /// what ``cancel(_:due:)`` takes: for timing operators' timers, which need no disposable.
    @usableFromInline
    package func enqueue(afterNanoseconds delay: Int64, _ action: consuming @escaping () -> Void) -> (sequence: UInt64, due: Int64) {
        let due = state.nowNanos &+ max(delay, 0)
        return (insert(due: due, action), due)
    }

    /// Cancels an action known by its sequence number and due time. One that sorts before the
    /// heap's head has already run (or was dropped): it needs no mark. Timers replaced after
    /// they fired (`delay`, `debounce`) are disposed that way all the time.
    @usableFromInline
    package func cancel(_ sequence: UInt64, due: Int64) {
        // Waiting unless it sorts before the head (the head itself is waiting too).
        guard let waiting = state.heap.withMin({ !Entry.precedes(due, sequence, $0.due, $0.sequence) }), waiting else { return }
        cancel(sequence)
    }

    /// Cancellation marks waiting to be skipped or compacted (for tests).
    package var cancelMarkCount: Int { state.cancelled.count }

    /// Cancels the action `sequence` names (from ``enqueue(at:_:)``). Meant for actions still
    /// waiting: one that already ran leaves a mark until the next compaction (harmless, but a
    /// cost), so callers that cannot tell use the disposables of `schedule`.
    @usableFromInline
    package func cancel(_ sequence: UInt64) {
        guard !state.heap.isEmpty else { return }
        state.cancelled.insert(sequence)
        // When half the heap is dead (or the set holds stale marks of actions that already
        // ran), rebuild: amortized O(log n) per cancellation, and memory stays bounded.
        if state.cancelled.count > 64 && state.cancelled.count * 2 > state.heap.count { compactCancelled() }
    }

    private func compactCancelled() {
        let old = state.heap
        state.heap = BinaryHeap(old.storage.filter { !state.cancelled.contains($0.sequence) })
        state.cancelled.removeAll(keepingCapacity: true)
        withExtendedLifetime(old) {}  // released after the change, as in cancelAll
    }

    private func dropCancelledHead() {
        while let head = state.heap.min, !state.cancelled.isEmpty, state.cancelled.remove(head.sequence) != nil {
            _ = state.heap.popMin()
        }
        if state.heap.isEmpty { state.cancelled.removeAll(keepingCapacity: true) }
    }

    /// Runs the earliest action, if any, moving `now` to its due time.
    /// - Returns: whether an action ran.
    @discardableResult
    public func step() -> Bool {
        popAndRun(through: .max)
    }

    /// Runs the earliest action due at or before `limit` nanoseconds, if any (a driver's loop
    /// converts its limit once).
    /// - Returns: whether an action ran.
    package func step(throughNanoseconds limit: Int64) -> Bool {
        popAndRun(through: limit)
    }

    @inline(__always)
    private func popAndRun(through limit: Int64) -> Bool {
        // The head's due time is read in place: copying the entry would retain its action only
        // to release it again.
        while let due = state.heap.withMin({ $0.due }), due <= limit {
            guard let head = state.heap.popMin() else { break }
            if !state.cancelled.isEmpty && state.cancelled.remove(head.sequence) != nil { continue }
            if due > state.nowNanos { state.nowNanos = due }
            Self.run(head)
            return true
        }
        return false
    }

    /// Calls the action of an entry it owns: called on a borrowed entry, the action was retained
    /// for the call and released after it.
    @inline(__always)
    private static func run(_ entry: consuming Entry) { entry.action() }

    /// Runs every action until none is left, including those scheduled meanwhile.
    /// - Throws: ``RxError/stepLimitExceeded(steps:now:)`` after `stepLimit` actions.
    /// - Complexity: O(k log n) for k actions.
    public func run() throws {
        var steps = 0
        while popAndRun(through: .max) {
            steps += 1
            if steps >= stepLimit && !state.heap.isEmpty { throw RxError.stepLimitExceeded(steps: steps, now: now) }
        }
        state.cancelled.removeAll(keepingCapacity: true)
    }

    /// Runs every action due within `duration` from now, then moves `now` forward by `duration`.
    /// - Throws: ``RxError/stepLimitExceeded(steps:now:)`` after `stepLimit` actions.
    public func advance(by duration: Duration) throws {
        try advance(to: now + duration)
    }

    /// Runs every action due at or before `time`, then moves `now` to `time` (never backwards).
    /// - Throws: ``RxError/stepLimitExceeded(steps:now:)`` after `stepLimit` actions.
    public func advance(to time: Duration) throws {
        let target = Self.nanos(time)
        var steps = 0
        while popAndRun(through: target) {
            steps += 1
            if steps >= stepLimit { throw RxError.stepLimitExceeded(steps: steps, now: now) }
        }
        if target > state.nowNanos { state.nowNanos = target }
    }
}

/// A scheduler whose time is a ``VirtualTimeScheduler``'s (that scheduler, or a test scheduler
/// on one): timing operators put their timers straight into its heap, known by number, with no
/// disposable per timer.
package protocol VirtualTimeBacked: AnyObject {
    /// The scheduler whose heap and clock this one uses.
    var virtualTimeScheduler: VirtualTimeScheduler { get }
}

extension VirtualTimeScheduler: VirtualTimeBacked {
    package var virtualTimeScheduler: VirtualTimeScheduler { self }
}

/// Cancels one action of a ``VirtualTimeScheduler``; a value type, so scheduling allocates
/// nothing beyond the action itself.
@usableFromInline
struct VirtualActionDisposable: Disposable, @unchecked Sendable {
    @usableFromInline let canceller: VirtualActionCanceller
    @usableFromInline let sequence: UInt64
    @usableFromInline let due: Int64

    @inlinable
    init(canceller: VirtualActionCanceller, sequence: UInt64, due: Int64) {
        self.canceller = canceller
        self.sequence = sequence
        self.due = due
    }

    @usableFromInline
    func dispose() { canceller.scheduler?.cancel(sequence, due: due) }
}

/// The scheduler its disposables cancel in, while it lives (it clears the reference in its
/// `deinit`; like the scheduler, used from one thread). Also what reads the scheduler's time
/// per event without an unowned reference's retain and release (a test's recordings).
@usableFromInline
package final class VirtualActionCanceller: @unchecked Sendable {
    // measured: a weak reference to the scheduler here cost about 30 of 130 ns an action
    // (f3ae3d1, A/B, release); the scheduler clears this in its deinit. Unmanaged (as an
    // unowned(unsafe) reference was): the time is read without a retain and release (figure:
    // MarbleExpectation.clock). Its exclusivity check stays: unchecked saved about 100
    // instructions an empty run and 1,070 a 10-event test (callgrind), but the wall time was
    // within the noise (the 10-event test 0.98x, delay and debounce 0.99x; A/B, release, min of
    // 9, session 32; 0.99x in session 31).
    @usableFromInline var reference: Unmanaged<VirtualTimeScheduler>?

    @usableFromInline init() {}

    /// The scheduler, while it lives.
    @inlinable package var scheduler: VirtualTimeScheduler? {
        get { reference?.takeUnretainedValue() }
        set { reference = newValue.map { Unmanaged.passUnretained($0) } }
    }

    /// The scheduler's time in nanoseconds, while it lives.
    @inlinable package var nowNanoseconds: Int64? { reference?._withUnsafeGuaranteedRef { $0.nowNanoseconds } }
}
