/// Picks the order of the work that is ready at one virtual instant, for one schedule of a
/// ``ScheduleExploration``: from a choice sequence whose zeros mean first in, first out, so a
/// sequence of zeros is the FIFO schedule and shrinking toward zeros shrinks toward it.
///
/// Two kinds of choice, each made only where there is more than one option:
/// - which of the jobs queued on the executor runs next (task jobs, default-actor jobs,
///   main-actor jobs, jobs of continuations the code resumed): 0 is the oldest;
/// - when a sleeper wakes and others are due at the same instant: 0 wakes it alone (its job
///   runs before the next wakes), 1 wakes all of them at once, so their jobs' order is chosen.
///
/// Used on the scheduler's thread only.
final class ScheduleChooser {
    /// A choice that left FIFO order, in the user's terms.
    struct Deviation: Equatable, Sendable {
        /// The virtual time it was made at.
        var time: Duration
        /// What happened instead of FIFO.
        var description: String
    }

    private(set) var choices: Choices
    private(set) var deviations: [Deviation] = []
    /// The scheduler's time, for the deviations.
    var now: () -> Duration = { .zero }
    /// The frame, for the deviations.
    var frame: Duration = .milliseconds(1)
    /// How many jobs were picked so far, to name them by their order of arrival.
    private var arrivals: [UnsafeMutableRawPointer: Int] = [:]

    init(choices: Choices) { self.choices = choices }

    /// The choices made so far (replaying them gives the same schedule).
    var used: [UInt64] { choices.used }

    /// Which of `ready` jobs (oldest first) runs next.
    func pickJob(among ready: ArraySlice<TestTaskExecutor.Queued>) -> Int {
        for queued in ready { label(queued) }
        let pick = choices.below(ready.count)
        if pick > 0 {
            let first = ready[ready.startIndex]
            let chosen = ready[ready.startIndex + pick]
            note("\(name(chosen)) ran before \(name(first)) (\(ready.count) jobs were ready)")
        }
        return pick
    }

    /// Whether a sleeper waking now also wakes the `others` due at the same instant.
    func wakesTogether(others: Int) -> Bool {
        guard choices.below(2) == 1 else { return false }
        note("\(others + 1) sleepers due at this instant woke together")
        return true
    }

    private func note(_ description: String) {
        deviations.append(Deviation(time: now(), description: description))
    }

    private func label(_ queued: TestTaskExecutor.Queued) {
        let key = unsafeBitCast(queued.job, to: UnsafeMutableRawPointer.self)
        if arrivals[key] == nil { arrivals[key] = arrivals.count + 1 }
    }

    /// A job as a reader can find it: the order it first became ready in, and whether it was
    /// main-actor work.
    private func name(_ queued: TestTaskExecutor.Queued) -> String {
        let key = unsafeBitCast(queued.job, to: UnsafeMutableRawPointer.self)
        let number = arrivals[key] ?? 0
        return queued.onMainActor ? "main-actor job #\(number)" : "job #\(number)"
    }
}
