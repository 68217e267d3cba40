import MarblesRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs one test body under many orders of the work that is ready at the same virtual instant,
/// to find the races a first-in-first-out run hides: two responses landing at one instant in
/// the other order, an actor method re-entered between its check and its write, two main-actor
/// tasks waking together.
///
/// Each schedule runs the body on a fresh ``TestScheduler``. The first schedule is FIFO (the
/// order every plain run uses); each later one is drawn from the run's seed: wherever more than
/// one job is ready at the current instant, or several sleepers are due at it, a seeded choice
/// picks what runs next: which ready job runs, and whether the sleepers due at an instant
/// wake together. Work due at different instants keeps its
/// time order, and marble inputs and test publishers keep their documented same-frame order:
/// those ties are the marble language's semantics, not races.
///
/// A failing schedule is shrunk toward FIFO (fewest, then earliest deviations) and reported at
/// the failing expectation's line with the usual diagram diff, the deviations that remain, and
/// the seed that replays it (`MARBLES_SEED`). `MARBLES_SCHEDULES` overrides the count.
///
/// `MarblesTesting` adds `exploreSchedules { s in … }`, which reports to the running test.
public enum ScheduleExploration {
    /// How a schedule's decisions are drawn from its seed.
    public enum Strategy: Sendable, Equatable {
        /// Each decision picks uniformly among its options (the default: it found every
        /// Examples race within 24 schedules for each of 100 seeds, in fewer schedules than PCT).
        case uniform
        /// Probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010): each job gets a
        /// random priority and the highest ready one runs; at `depth - 1` decisions drawn among
        /// the first `horizon`, the running job's priority drops below every other.
        case pct(depth: Int, horizon: Int)
    }

    /// What an exploration found.
    public struct Outcome: Sendable {
        /// The seed of the run: the same seed runs the same schedules.
        public var seed: UInt64
        /// How many schedules ran.
        public var schedules: Int
        /// The smallest failing schedule, when one failed.
        public var failure: FailingSchedule?
        /// Exhaustive runs: whether every distinct order ran (else the bound stopped them).
        public var exhausted: Bool = false
    }

    /// A schedule whose expectations failed, after shrinking.
    public struct FailingSchedule: Sendable {
        /// The number (from 1; 1 is FIFO) of the first schedule that failed.
        public var scheduleNumber: Int
        /// How many deviations from FIFO the first failing schedule made.
        public var originalDeviations: Int
        /// What the smallest failing schedule did instead of FIFO, at which virtual time.
        public var deviations: [(time: Duration, description: String)]
        /// How many replays shrinking tried.
        public var shrinkSteps: Int
        /// How long shrinking took.
        public var shrinkTime: Duration
        /// The smallest schedule's failures, as its expectations reported them.
        public var failures: [MarbleFailure]
    }

    /// Runs `body` under `schedules` schedules (`MARBLES_SCHEDULES` overrides it) drawn from
    /// `seed` (else `MARBLES_SEED`, else a fresh one), stopping at the first that fails; that
    /// one is shrunk and its failures go to `reporter`.
    ///
    /// - Parameters:
    ///   - schedules: how many schedules to run, the first being FIFO; with `exhaustive`, the
    ///     bound on how many distinct orders to run.
    ///   - exhaustive: run every distinct order (depth first from FIFO, each decision's options
    ///     in turn) instead of random ones, up to `schedules`; ``Outcome/exhausted`` tells
    ///     whether all of them ran. For small bodies: the count grows with every decision.
    ///   - strategy: how a random schedule's decisions are drawn.
    ///   - seed: the run's seed (else `MARBLES_SEED`, else a fresh one): the same seed runs the
    ///     same schedules.
    ///   - frame: each schedule's scheduler's frame.
    ///   - reporter: where the smallest failing schedule's failures go.
    ///   - location: where a failure that belongs to no expectation (an unreadable variable) is
    ///     reported.
    ///   - body: the test, run inside each fresh scheduler's `run { }`.
    @discardableResult
    public static func check(
        schedules: Int = 100, exhaustive: Bool = false, strategy: Strategy = .uniform, seed: UInt64? = nil,
        frame: Duration = .milliseconds(1), reporter: any MarbleFailure.Reporter, location: MarbleFailure.Location,
        _ body: (TestScheduler) -> Void
    ) -> Outcome {
        check(
            schedules: schedules, exhaustive: exhaustive, strategy: strategy, seed: seed, frame: frame, reporter: reporter,
            location: location, listener: TestScheduler.Listener(), body)
    }

    /// The same, with a listener that hears the smallest failing schedule's expectations (a
    /// diagram writer).
    @discardableResult
    package static func check(
        schedules: Int = 100, exhaustive: Bool = false, strategy: Strategy = .uniform, seed: UInt64? = nil,
        frame: Duration = .milliseconds(1), reporter: any MarbleFailure.Reporter, location: MarbleFailure.Location,
        listener: TestScheduler.Listener, _ body: (TestScheduler) -> Void
    ) -> Outcome {
        if let problem = environmentProblem {
            reporter.report(MarbleFailure(message: problem + "; the schedules did not run", location: location))
            return Outcome(seed: 0, schedules: 0, failure: nil)
        }
        let seed = seed ?? MarbleProperty.environment("MARBLES_SEED").flatMap(MarbleProperty.seed(from:)) ?? freshSeed
        let count = max(MarbleProperty.environment("MARBLES_SCHEDULES").flatMap { Int($0) } ?? schedules, 1)
        var seeds = SplitMix64(seed: seed)
        let strategy = exhaustive ? .uniform : strategy
        // The first schedule replays no choices: all zeros, FIFO. Exhaustive runs then count up
        // like an odometer whose digits have each decision's number of options; `nil` once every
        // order ran.
        var replay: [UInt64]? = []
        var number = 0
        while number < count, let prefix = replay {
            number += 1
            let choices = number == 1 || exhaustive ? Choices(replaying: prefix) : Choices(seed: seeds.next())
            let first = run(choices, strategy: strategy, frame: frame, location: location, body)
            if exhaustive { replay = Self.successor(of: first.choices, radices: first.radices) }
            guard !first.failures.isEmpty else { continue }
            let shrunk = Shrinker.smallest(from: Shrinker.Failing(choices: first.choices, size: first.size), budget: 1_000) {
                let replay = run(Choices(replaying: $0), strategy: strategy, frame: frame, location: location, body)
                return replay.failures.isEmpty ? nil : Shrinker.Failing(choices: replay.choices, size: replay.size)
            }
            let last = run(
                Choices(replaying: shrunk.choices), strategy: strategy, frame: frame, location: location, listener: listener, body)
            let failing = FailingSchedule(
                scheduleNumber: number, originalDeviations: first.chooser.deviationCount,
                deviations: last.deviations.map { ($0.time, $0.description) }, shrinkSteps: shrunk.steps,
                shrinkTime: shrunk.time, failures: last.failures.isEmpty ? first.failures : last.failures)
            report(failing, seed: seed, count: count, frame: frame, to: reporter)
            return Outcome(seed: seed, schedules: number, failure: failing)
        }
        return Outcome(seed: seed, schedules: number, failure: nil, exhausted: exhaustive && replay == nil)
    }

    /// The next choice sequence in depth-first order after `choices`, whose decisions had
    /// `radices` options each: the last decision that has an option left takes it, the ones
    /// after it start again from 0 (read past the end). `nil` when every order ran.
    static func successor(of choices: [UInt64], radices: [Int]) -> [UInt64]? {
        var index = min(choices.count, radices.count) - 1
        while index >= 0 {
            if Int(choices[index]) + 1 < radices[index] {
                return Array(choices[..<index]) + [choices[index] + 1]
            }
            index -= 1
        }
        return nil
    }

    private struct ScheduleRun {
        var failures: [MarbleFailure]
        var choices: [UInt64]
        var radices: [Int]
        let chooser: ScheduleChooser
        /// The deviations, named (built when a failure is reported).
        var deviations: [ScheduleChooser.Deviation] { chooser.deviations }
        /// Fewer deviations first, then earlier ones: what "closer to FIFO" means.
        var size: Int {
            let last = choices.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
            return chooser.deviationCount * 1_000_000 + last
        }
    }

    private static func run(
        _ choices: Choices, strategy: Strategy, frame: Duration, location: MarbleFailure.Location,
        listener: TestScheduler.Listener = TestScheduler.Listener(), _ body: (TestScheduler) -> Void
    ) -> ScheduleRun {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: frame, reporter: reporter, listener: listener)
        let chooser = ScheduleChooser(choices: choices, strategy: strategy)
        chooser.now = { [unowned scheduler] in scheduler.now }
        scheduler.executor.chooser = chooser
        scheduler.run(at: location) { body(scheduler) }
        return ScheduleRun(failures: reporter.failures, choices: chooser.used, radices: chooser.radices, chooser: chooser)
    }

    private static func report(
        _ failing: FailingSchedule, seed: UInt64, count: Int, frame: Duration, to reporter: any MarbleFailure.Reporter
    ) {
        let seedText = "0x" + String(seed, radix: 16)
        let order =
            failing.deviations.isEmpty
            ? ["  (none: the FIFO schedule fails)"]
            : failing.deviations.map { "  at \(frameText($0.time, frame: frame)): \($0.description)" }
        let header = """
            schedule \(failing.scheduleNumber) of \(count) failed (the first is FIFO); shrunk from \(failing.originalDeviations) \
            to \(failing.deviations.count) deviation(s) from FIFO in \(failing.shrinkSteps) tries:
            """
        let rerun = "seed \(seedText): replay with seed: \(seedText) or MARBLES_SEED=\(seedText)"
        for failure in failing.failures {
            reporter.report(
                MarbleFailure(
                    message: ([header] + order + [rerun, failure.message]).joined(separator: "\n"), location: failure.location))
        }
    }

    private static var environmentProblem: String? {
        if let text = MarbleProperty.environment("MARBLES_SEED"), MarbleProperty.seed(from: text) == nil {
            return "MARBLES_SEED='\(text)' is not a seed (a decimal or 0x-prefixed hexadecimal number)"
        }
        if let text = MarbleProperty.environment("MARBLES_SCHEDULES"), (Int(text) ?? 0) < 1 {
            return "MARBLES_SCHEDULES='\(text)' is not a positive count"
        }
        return nil
    }

    private static var freshSeed: UInt64 {
        let now = Watchdog.realDateNanoseconds()
        var mix = SplitMix64(seed: UInt64(truncatingIfNeeded: (now / 1_000_000_000) &* 1_000_000_007 &+ now % 1_000_000_000))
        return mix.next()
    }
}
