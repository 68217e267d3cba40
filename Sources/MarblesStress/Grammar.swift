import Atomics
import Dispatch
import MarbleCore

/// What a scenario expects of its stream besides the grammar.
struct Outcome: Sendable {
    enum Terminal: Sendable { case completed, error }
    var terminal: Terminal = .completed
    /// Exactly this many values, when the operator makes it deterministic.
    var count: Int?
    /// Values strictly increasing (order-preserving operators over increasing sources).
    var increasing = false
    /// The last value, when it is deterministic.
    var last: Int?
}

/// Counters shared by all threads; every check is an atomic read-modify-write.
final class Tally: Sendable {
    let runs = ManagedAtomic<Int>(0)
    let events = ManagedAtomic<Int>(0)
    let concurrent = ManagedAtomic<Int>(0)
    let afterTerminal = ManagedAtomic<Int>(0)
    let wrongOutcome = ManagedAtomic<Int>(0)
    let stalls = ManagedAtomic<Int>(0)
    var violations: Int {
        concurrent.load(ordering: .relaxed) + afterTerminal.load(ordering: .relaxed) + wrongOutcome.load(ordering: .relaxed)
            + stalls.load(ordering: .relaxed)
    }
}

/// An observer that checks the Rx grammar with atomics: no overlapping calls, nothing after a
/// terminal event, and the scenario's outcome; it signals when the stream ends.
final class GrammarObserver: ObserverType, Sendable {
    private let inside = ManagedAtomic<Int>(0)
    private let terminated = ManagedAtomic<Bool>(false)
    private let count = ManagedAtomic<Int>(0)
    private let last = ManagedAtomic<Int>(Int.min)
    private let ordered = ManagedAtomic<Bool>(true)
    private let tally: Tally
    private let expected: Outcome
    let ended = DispatchSemaphore(value: 0)

    init(tally: Tally, expected: Outcome) {
        self.tally = tally
        self.expected = expected
    }

    func on(_ event: Event<Int>) {
        if inside.wrappingIncrementThenLoad(by: 1, ordering: .acquiringAndReleasing) != 1 {
            tally.concurrent.wrappingIncrement(by: 1, ordering: .relaxed)
        }
        defer { inside.wrappingDecrement(by: 1, ordering: .acquiringAndReleasing) }
        if terminated.load(ordering: .acquiring) {
            tally.afterTerminal.wrappingIncrement(by: 1, ordering: .relaxed)
            return
        }
        tally.events.wrappingIncrement(by: 1, ordering: .relaxed)
        switch event {
        case .next(let value):
            count.wrappingIncrement(by: 1, ordering: .relaxed)
            let previous = last.exchange(value, ordering: .relaxed)
            if value <= previous { ordered.store(false, ordering: .relaxed) }
        case .completed:
            finish(.completed)
        case .error:
            finish(.error)
        }
    }

    private func finish(_ terminal: Outcome.Terminal) {
        terminated.store(true, ordering: .releasing)
        let countOK = expected.count.map { $0 == count.load(ordering: .relaxed) } ?? true
        let lastOK = expected.last.map { $0 == last.load(ordering: .relaxed) } ?? true
        let orderOK = !expected.increasing || ordered.load(ordering: .relaxed)
        if terminal != expected.terminal || !countOK || !lastOK || !orderOK {
            tally.wrongOutcome.wrappingIncrement(by: 1, ordering: .relaxed)
        }
        ended.signal()
    }
}
