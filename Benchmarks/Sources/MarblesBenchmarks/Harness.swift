import Foundation

// A plain timing harness. Every comparison runs its contenders in the same process, round
// robin (one run of each per repetition, so drift and noise hit all of them alike), checks each
// run's result, and prints the median, the min–max and the ratio of medians to the first
// contender, its baseline. Release builds for figures; debug builds for the debug column.

/// Command-line options: `--quick` (fewer repetitions and smaller sizes), `--reps N`,
/// `--only a,b` (sections by name).
struct Options {
    let quick: Bool
    let reps: Int
    let only: Set<String>?
    /// `--sizes 1000,100000`: the scheduler section's action counts (for profiling one size).
    let sizes: [Int]?

    init(_ arguments: [String]) {
        quick = arguments.contains("--quick")
        reps = Self.value(after: "--reps", in: arguments).flatMap { Int($0) } ?? (quick ? 3 : 9)
        only = Self.value(after: "--only", in: arguments).map { Set($0.split(separator: ",").map(String.init)) }
        sizes = Self.value(after: "--sizes", in: arguments).map { $0.split(separator: ",").compactMap { Int($0) } }
    }

    private static func value(after flag: String, in arguments: [String]) -> String? {
        guard let i = arguments.firstIndex(of: flag), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }

    func runs(_ section: String) -> Bool { only?.contains(section) ?? true }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

/// How a run's time is shown: nanoseconds of one run → the figure printed.
struct Unit {
    let name: String
    let figure: (Double) -> Double

    static func nanoseconds(per count: Int, _ name: String = "ns/event") -> Unit {
        Unit(name: name, figure: { $0 / Double(count) })
    }
    static func microseconds(per count: Int, _ name: String = "µs/test") -> Unit {
        Unit(name: name, figure: { $0 / Double(count) / 1e3 })
    }
    static func milliseconds(per count: Int, _ name: String = "ms") -> Unit {
        Unit(name: name, figure: { $0 / Double(count) / 1e6 })
    }
    static func megabytesPerSecond(_ bytes: Int) -> Unit {
        Unit(name: "MB/s", figure: { Double(bytes) / 1e6 / ($0 / 1e9) })
    }
}

/// One contender: a body that does the work once and checks its result (a wrong result stops
/// the program: a fast wrong answer is not a figure).
struct Contender {
    let name: String
    let reps: Int?
    let body: () -> Void

    init(_ name: String, reps: Int? = nil, _ body: @escaping () -> Void) {
        self.name = name
        self.reps = reps
        self.body = body
    }
}

func nanoseconds(_ duration: Duration) -> Double {
    let (s, atto) = duration.components
    return Double(s) * 1e9 + Double(atto) / 1e9
}

/// Runs the contenders round robin and prints one line each; the first is the baseline.
/// A contender with its own `reps` (a slow peer) takes part in the first rounds only.
@discardableResult
func compare(_ title: String, unit: Unit, reps: Int = options.reps, _ contenders: [Contender]) -> [String: Double] {
    say("== \(title) (\(unit.name))")
    let clock = ContinuousClock()
    for contender in contenders where (contender.reps ?? reps) > 1 { contender.body() }  // warm-up
    var samples = Array(repeating: [Double](), count: contenders.count)
    for round in 0..<reps {
        for (i, contender) in contenders.enumerated() where round < (contender.reps ?? reps) {
            samples[i].append(nanoseconds(clock.measure(contender.body)))
        }
    }
    var medians: [String: Double] = [:]
    var baseline: Double?
    for (i, contender) in contenders.enumerated() {
        let sorted = samples[i].sorted()
        let median = sorted[sorted.count / 2]
        let figures = (unit.figure(median), unit.figure(sorted.first!), unit.figure(sorted.last!))
        var line = "  " + contender.name.padding(toLength: 56, withPad: " ", startingAt: 0)
        line += String(format: "%11.2f  [%.2f–%.2f]", figures.0, min(figures.1, figures.2), max(figures.1, figures.2))
        if let baseline {
            line += String(format: "  %7.2f× baseline", median / baseline)
        } else {
            line += "  (baseline)"
            baseline = median
        }
        if sorted.count < reps { line += "  (\(sorted.count) runs)" }
        say(line)
        medians[contender.name] = median
    }
    return medians
}

/// Prints a line at once (stdout is block-buffered when piped, and a failed check would lose it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

@_optimize(none) func blackHole<T>(_ value: T) {}

/// Hides a value from the optimizer, so loops over it are not folded away.
@inline(never) func opaque<T>(_ value: T) -> T { value }

/// Closures built out of the optimizer's sight, as a chain of stages would be.
@inline(never) func makeStages(_ sink: @escaping (Int) -> Void) -> (Int) -> Void {
    let scan: (Int) -> Void = { v in sink(v) }
    let filter: (Int) -> Void = { v in if v & 1 == 0 { scan(v) } }
    return { v in filter(v &* 3) }
}

/// The same chain as an engine with stored user closures must run it: each stage a closure
/// that calls the user's closure, then the next stage (the floor for type-erased operators).
@inline(never) func makeStagesCallingUserClosures(
    transform: @escaping (Int) -> Int, predicate: @escaping (Int) -> Bool, accumulate: @escaping (Int, Int) -> Int,
    sink: @escaping (Int) -> Void
) -> (Int) -> Void {
    final class Accumulator { var value = 0 }
    let state = Accumulator()
    let scan: (Int) -> Void = { v in
        state.value = accumulate(state.value, v)
        sink(state.value)
    }
    let filter: (Int) -> Void = { v in if predicate(v) { scan(v) } }
    return { v in filter(transform(v)) }
}

/// Three transforms composed into one closure out of the optimizer's sight: what fusing
/// `map(f).map(g).map(h)` into one stage would run per value.
@inline(never) func composed(_ f: @escaping (Int) -> Int, _ g: @escaping (Int) -> Int, _ h: @escaping (Int) -> Int) -> (Int) -> Int {
    { h(g(f($0))) }
}

/// The expected sum of the chain map(×3) → filter(even) → scan(+) over 0..<n.
func chainResult(_ n: Int) -> Int {
    var acc = 0
    for i in 0..<n where (i &* 3) & 1 == 0 { acc &+= i &* 3 }
    return acc
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
