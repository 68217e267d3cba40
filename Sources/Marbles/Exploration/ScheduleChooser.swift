import MarblesRuntime

/// Picks the order of the work that is ready at one virtual instant, for one schedule of a
/// ``ScheduleExploration``: from a choice sequence whose zeros mean first in, first out, so a
/// sequence of zeros is the FIFO schedule and shrinking toward zeros shrinks toward it.
///
/// Two kinds of decision, each made only where there is more than one option:
/// - which of the jobs queued on the executor runs next (task jobs, default-actor jobs,
///   main-actor jobs, jobs of continuations the code resumed): 0 is the oldest;
/// - when a sleeper wakes and others are due at the same instant: 0 wakes it alone (its job
///   runs before the next wakes), 1 wakes all of them at once, so their jobs' order is chosen.
///
/// How a decision reads the choices depends on the ``ScheduleExploration/Strategy``: uniform
/// (one choice per decision, among its options) or PCT (a priority per job and a few points
/// where the running job's priority drops).
///
/// Used on the scheduler's thread only.
final class ScheduleChooser: ScheduleChoosing {
    /// A decision that left FIFO order, in the user's terms.
    struct Deviation: Equatable, Sendable {
        /// The virtual time it was made at.
        var time: Duration
        /// What happened instead of FIFO.
        var description: String
    }

    /// A decision that left FIFO order, as made: named once the run is over, when the tasks'
    /// names are known.
    private enum Made {
        case order(chosen: TestTaskExecutor.Queued, first: TestTaskExecutor.Queued, ready: Int)
        case wakeTogether(sleepers: Int)
    }

    private(set) var choices: Choices
    private var made: [(time: Duration, decision: Made)] = []
    /// How many options each choice had, in order (the exhaustive search's odometer).
    private(set) var radices: [Int] = []
    /// The scheduler's time, for the deviations.
    var now: () -> Duration = { .zero }
    private let strategy: ScheduleExploration.Strategy
    /// Every job made ready on the scheduler's thread, in order (a task's jobs share its
    /// pointer): jobs are numbered by their first appearance when deviations are named.
    var readyLog: [UnsafeMutableRawPointer] = []
    /// `Task(name:)` of the tasks seen running code that reached the scheduler.
    private var names: [UnsafeMutableRawPointer: String] = [:]
    /// PCT: each job's priority (higher runs first), and the decisions at which the chosen job's
    /// priority drops below every other.
    private var priorities: [UnsafeMutableRawPointer: Int] = [:]
    private var changePoints: Set<Int> = []
    private var decisions = 0
    private var lowest = 0

    init(choices: Choices, strategy: ScheduleExploration.Strategy = .uniform) {
        self.choices = choices
        self.strategy = strategy
        if case .pct(let depth, let horizon) = strategy {
            // Choice 0: no change point (so zeros stay FIFO).
            for _ in 0..<max(depth - 1, 0) {
                let point = draw(horizon + 1)
                if point > 0 { changePoints.insert(point - 1) }
            }
        }
    }

    /// The choices made so far (replaying them gives the same schedule).
    var used: [UInt64] { choices.used }

    /// Which of `ready` jobs (oldest first) runs next.
    func noteReady(_ job: UnownedJob) { readyLog.append(unsafeBitCast(job, to: UnsafeMutableRawPointer.self)) }

    func pickJob(among ready: ArraySlice<TestTaskExecutor.Queued>) -> Int {
        let pick: Int
        switch strategy {
        case .uniform: pick = draw(ready.count)
        case .pct: pick = pickByPriority(ready)
        }
        if pick > 0 {
            made.append((now(), .order(chosen: ready[ready.startIndex + pick], first: ready[ready.startIndex], ready: ready.count)))
        }
        return pick
    }

    /// Whether a sleeper waking now also wakes the `others` due at the same instant.
    func wakesTogether(others: Int) -> Bool {
        guard draw(2) == 1 else { return false }
        made.append((now(), .wakeTogether(sleepers: others + 1)))
        return true
    }

    /// Notes the running task's `Task(name:)`, to name its jobs in deviations.
    func noteCurrentTaskName() {
        #if compiler(>=6.2)
            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                guard let name = Task.name else { return }
                withUnsafeCurrentTask { task in
                    guard let task else { return }
                    names[unsafeBitCast(task, to: UnsafeMutableRawPointer.self)] = name
                }
            }
        #endif
    }

    private func pickByPriority(_ ready: ArraySlice<TestTaskExecutor.Queued>) -> Int {
        defer { decisions += 1 }
        var best = 0
        var bestPriority = Int.min
        for (offset, queued) in ready.enumerated() {
            let job = key(queued)
            let priority: Int
            if let known = priorities[job] {
                priority = known
            } else {
                // A new job's priority: 0 for the choice 0, so all-zero choices tie and stay FIFO.
                priority = draw(1_000)
                priorities[job] = priority
            }
            if priority > bestPriority {
                (best, bestPriority) = (offset, priority)
            }
        }
        if changePoints.contains(decisions) {
            lowest -= 1
            priorities[key(ready[ready.startIndex + best])] = lowest
        }
        return best
    }

    /// A number in `0..<count` from the choices, its radix noted.
    private func draw(_ count: Int) -> Int {
        // `below` takes no choice for a single option: no radix either, so both stay aligned.
        if count > 1 { radices.append(count) }
        return choices.below(count)
    }

    /// How many decisions left FIFO order.
    var deviationCount: Int { made.count }

    /// The decisions that left FIFO order, in the order they were made.
    var deviations: [Deviation] {
        var arrivals: [UnsafeMutableRawPointer: Int] = [:]
        for job in readyLog where arrivals[job] == nil { arrivals[job] = arrivals.count + 1 }
        func name(_ queued: TestTaskExecutor.Queued) -> String {
            let job = key(queued)
            let base = names[job].map { "task \"\($0)\"" } ?? "job #\(arrivals[job] ?? 0)"
            return queued.onMainActor ? "main-actor \(base)" : base
        }
        return made.map { time, decision in
            switch decision {
            case .order(let chosen, let first, let ready):
                Deviation(time: time, description: "\(name(chosen)) ran before \(name(first)) (\(ready) jobs were ready)")
            case .wakeTogether(let sleepers):
                Deviation(time: time, description: "\(sleepers) sleepers due at this instant woke together")
            }
        }
    }

    private func key(_ queued: TestTaskExecutor.Queued) -> UnsafeMutableRawPointer {
        unsafeBitCast(queued.job, to: UnsafeMutableRawPointer.self)
    }
}
