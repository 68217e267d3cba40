import MarblesRuntime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Properties over generated marble diagrams: a property runs on many cases, each on a fresh
/// ``TestScheduler`` with diagrams drawn from a ``MarbleProperty/Generator``, and fails when a case's
/// expectations fail. A failing case is shrunk to the smallest diagrams that still fail (fewer
/// events and frames, simpler values, earlier ends) and reported as they are: the diagrams, the
/// failure of the smallest case (both timelines aligned, as `toBe` reports them), and the seed
/// that reproduces the run.
///
/// `MarblesTesting` adds `checkMarbles { s, draw in … }`, which reports to the running test.
public enum MarbleProperty {
    /// What a check found.
    public struct Outcome: Sendable {
        /// The seed of the run: the same seed runs the same cases.
        public var seed: UInt64
        /// How many cases ran.
        public var cases: Int
        /// The smallest failing case, when one failed.
        public var counterexample: Counterexample?
    }

    /// A failing case, before and after shrinking.
    public struct Counterexample: Sendable {
        /// The number (from 1) of the first failing case.
        public var caseNumber: Int
        /// The diagrams the first failing case drew.
        public var original: [String]
        /// How many events the first failing case's diagrams held.
        public var originalEvents: Int
        /// The diagrams of the smallest failing case.
        public var shrunk: [String]
        /// How many events the smallest failing case's diagrams hold.
        public var shrunkEvents: Int
        /// How many replays shrinking tried.
        public var shrinkSteps: Int
        /// How long shrinking took.
        public var shrinkTime: Duration
        /// The smallest case's failures, as its expectations reported them.
        public var failures: [MarbleFailure]
    }

    /// Runs `property` on `count` cases (`MARBLES_PROPERTY_COUNT` overrides it) drawn from `seed`
    /// (else `MARBLES_SEED`, else a fresh one); diagrams span up to `minFrames`…`maxFrames`
    /// frames, the bound growing with the case number. The smallest failing case's failures go to `reporter`, each with the
    /// diagrams and the seed; `configure` prepares that case's scheduler (a diagram writer).
    @discardableResult
    public static func check(
        count: Int = 100, seed: UInt64? = nil, minFrames: Int = 2, maxFrames: Int = 24, frame: Duration = .milliseconds(1),
        reporter: any MarbleFailure.Reporter, location: MarbleFailure.Location,
        _ property: (TestScheduler, MarbleProperty.Generator) -> Void
    ) -> Outcome {
        check(
            count: count, seed: seed, minFrames: minFrames, maxFrames: maxFrames, frame: frame, reporter: reporter, location: location,
            listener: TestScheduler.Listener(), property)
    }

    /// The same, with a listener for the smallest failing case's scheduler (a diagram writer).
    @discardableResult
    package static func check(
        count: Int = 100, seed: UInt64? = nil, minFrames: Int = 2, maxFrames: Int = 24, frame: Duration = .milliseconds(1),
        reporter: any MarbleFailure.Reporter, location: MarbleFailure.Location, listener: TestScheduler.Listener,
        _ property: (TestScheduler, MarbleProperty.Generator) -> Void
    ) -> Outcome {
        if let problem = environmentProblem {
            reporter.report(MarbleFailure(message: problem + "; the property did not run", location: location))
            return Outcome(seed: 0, cases: 0, counterexample: nil)
        }
        var fresh = SplitMix64(seed: UInt64(truncatingIfNeeded: clockSeed))
        let seed = seed ?? environment("MARBLES_SEED").flatMap(Self.seed(from:)) ?? fresh.next()
        let count = environment("MARBLES_PROPERTY_COUNT").flatMap { Int($0) } ?? count
        var seeds = SplitMix64(seed: seed)
        let low = min(max(minFrames, 1), max(maxFrames, 1))
        for number in 1...max(count, 1) {
            let size = low + (max(maxFrames, low) - low) * (number - 1) / max(count - 1, 1)
            let first = run(Choices(seed: seeds.next()), size: size, frame: frame, location: location, property)
            guard !first.failures.isEmpty else { continue }
            let shrunk = Shrinker.smallest(from: Shrinker.Failing(choices: first.choices, size: first.size), budget: 3_000) {
                let replay = run(Choices(replaying: $0), size: size, frame: frame, location: location, property)
                return replay.failures.isEmpty ? nil : Shrinker.Failing(choices: replay.choices, size: replay.size)
            }
            let last = run(Choices(replaying: shrunk.choices), size: size, frame: frame, location: location, listener: listener, property)
            let example = Counterexample(
                caseNumber: number, original: first.drawn, originalEvents: first.events, shrunk: last.drawn, shrunkEvents: last.events,
                shrinkSteps: shrunk.steps, shrinkTime: shrunk.time,
                failures: last.failures.isEmpty ? first.failures : last.failures)
            report(example, seed: seed, count: count, to: reporter)
            return Outcome(seed: seed, cases: number, counterexample: example)
        }
        return Outcome(seed: seed, cases: count, counterexample: nil)
    }

    private struct CaseRun {
        var failures: [MarbleFailure]
        var choices: [UInt64]
        var drawn: [String]
        var events: Int
        var frames: Int
        /// Events first, then frames: what "smaller" means to a reader.
        var size: Int { events * 10_000 + frames }
    }

    private static func run(
        _ choices: Choices, size: Int, frame: Duration, location: MarbleFailure.Location,
        listener: TestScheduler.Listener = TestScheduler.Listener(),
        _ property: (TestScheduler, MarbleProperty.Generator) -> Void
    ) -> CaseRun {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(frame: frame, reporter: reporter, listener: listener)
        let draw = MarbleProperty.Generator(choices: choices, size: size, scheduler: scheduler)
        scheduler.run(at: location) { property(scheduler, draw) }
        return CaseRun(
            failures: reporter.failures, choices: draw.usedChoices, drawn: draw.drawn, events: draw.eventCount, frames: draw.frameCount)
    }

    private static func report(_ example: Counterexample, seed: UInt64, count: Int, to reporter: any MarbleFailure.Reporter) {
        let seedText = "0x" + String(seed, radix: 16)
        let header = """
            property failed on case \(example.caseNumber) of \(count); the smallest failing case (\(example.shrunkEvents) event(s), \
            shrunk from \(example.originalEvents) in \(example.shrinkSteps) tries):
            """
        let diagrams = example.shrunk.map { "  " + $0 }.joined(separator: "\n")
        let rerun = "seed \(seedText): rerun with seed: \(seedText) or MARBLES_SEED=\(seedText)"
        for failure in example.failures {
            reporter.report(
                MarbleFailure(message: [header, diagrams, rerun, failure.message].joined(separator: "\n"), location: failure.location))
        }
    }

    /// A variable that is set but unreadable: a mistake to report, not to run past (the run would
    /// not be the one asked for).
    private static var environmentProblem: String? {
        if let text = environment("MARBLES_SEED"), seed(from: text) == nil {
            return "MARBLES_SEED='\(text)' is not a seed (a decimal or 0x-prefixed hexadecimal number)"
        }
        if let text = environment("MARBLES_PROPERTY_COUNT"), (Int(text) ?? 0) < 1 {
            return "MARBLES_PROPERTY_COUNT='\(text)' is not a positive count"
        }
        return nil
    }

    /// A seed as the failure message prints it (`0x2a`) or in decimal.
    static func seed(from text: String) -> UInt64? {
        if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Real, also inside a run (where the executable's clock reads are virtual).
    private static var clockSeed: Int64 {
        let now = Watchdog.realDateNanoseconds()
        return (now / 1_000_000_000) &* 1_000_000_007 &+ now % 1_000_000_000
    }
}
