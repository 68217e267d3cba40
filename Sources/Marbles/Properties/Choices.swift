/// The random choices a property case was drawn from, and how to draw them again.
///
/// Every generated diagram is a function of a sequence of 64-bit choices. A fresh case draws
/// them from a seeded generator; a replay reads them back, and reads 0 past their end. Smaller
/// choices always mean simpler diagrams (0 ends a diagram, picks the first value, adds no end
/// event), so shrinking the sequence (deleting choices, lowering them) shrinks every diagram a
/// property draws at once, across the diagrams, with no shrinker per generator (the approach of
/// Hypothesis).
struct Choices {
    private(set) var values: [UInt64]
    private var position = 0
    private var random: SplitMix64?

    /// Choices drawn fresh from `seed`.
    init(seed: UInt64) {
        values = []
        random = SplitMix64(seed: seed)
    }

    /// Choices replayed from `values` (0 past their end).
    init(replaying values: [UInt64]) {
        self.values = values
        random = nil
    }

    /// The next choice.
    mutating func next() -> UInt64 {
        defer { position += 1 }
        if position < values.count { return values[position] }
        var value: UInt64 = 0
        if var random {
            value = random.next()
            self.random = random
        }
        values.append(value)
        return value
    }

    /// The choices used so far (a replay may use fewer than it was given).
    var used: [UInt64] { Array(values.prefix(position)) }

    /// A number in `0..<count`; 0 for the choice 0. The choice is stored reduced, so that
    /// lowering it by one picks the next simpler option.
    mutating func below(_ count: Int) -> Int {
        guard count > 1 else { return 0 }
        let value = next() % UInt64(count)
        values[position - 1] = value
        return Int(value)
    }

    /// An index into `weights`, chosen in proportion to them; the choice 0 picks index 0.
    mutating func weighted(_ weights: [Int]) -> Int {
        var pick = below(weights.reduce(0, +))
        for (index, weight) in weights.enumerated() {
            if pick < weight { return index }
            pick -= weight
        }
        return weights.count - 1
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64): the same seed gives
/// the same cases on every platform.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Shrinks a failing choice sequence: tries smaller sequences (shortlex: fewer choices first,
/// then smaller ones) and keeps each that still fails, until no try succeeds or `budget` runs
/// out.
struct Shrinker {
    /// A failing replay: the choices it used and the size of what it drew (events, then frames).
    struct Failing {
        var choices: [UInt64]
        var size: Int
    }

    let fails: ([UInt64]) -> Failing?
    var budget: Int
    private(set) var steps = 0
    private var bestSize = Int.max

    /// `fails` runs a replay and returns what it used when the property still fails.
    init(budget: Int, fails: @escaping ([UInt64]) -> Failing?) {
        self.budget = budget
        self.fails = fails
    }

    /// Shrinks `start` with `budget` replays: `fails` replays a candidate and returns what it
    /// used when it still fails. Returns the smallest failing sequence, the replays tried and
    /// the time it took.
    static func smallest(
        from start: Failing, budget: Int, fails: ([UInt64]) -> Failing?
    ) -> (choices: [UInt64], steps: Int, time: Duration) {
        let began = ContinuousClock.now
        return withoutActuallyEscaping(fails) { fails in
            var shrinker = Shrinker(budget: budget, fails: fails)
            let smallest = shrinker.shrink(start)
            return (smallest, shrinker.steps, began.duration(to: .now))
        }
    }

    mutating func shrink(_ start: Failing) -> [UInt64] {
        var best = start.choices
        bestSize = start.size
        var improved = true
        while improved, budget > 0 {
            improved = false
            // Delete runs of choices, long runs first: drops whole events, frames and diagrams.
            for size in [32, 16, 8, 4, 2, 1] {
                var index = 0
                while index + size <= best.count, budget > 0 {
                    var candidate = best
                    candidate.removeSubrange(index..<(index + size))
                    if let kept = attempt(candidate, better: best) {
                        best = kept
                        improved = true
                    } else {
                        index += 1
                    }
                }
            }
            // Lower each choice: to 0, then halve, then one less (simpler values, earlier ends).
            // (A kept candidate may be shorter: the replay used fewer choices.)
            var index = 0
            while index < best.count, budget > 0 {
                let current = best[index]
                for smaller in [0, current / 2, current &- 1] where smaller < current && budget > 0 {
                    var candidate = best
                    candidate[index] = smaller
                    if let kept = attempt(candidate, better: best) {
                        best = kept
                        improved = true
                        break
                    }
                }
                index += 1
            }
        }
        return best
    }

    /// Keeps `candidate` when it still fails and draws less (fewer events and frames), or as
    /// much from fewer or smaller choices.
    private mutating func attempt(_ candidate: [UInt64], better current: [UInt64]) -> [UInt64]? {
        budget -= 1
        steps += 1
        guard let failing = fails(candidate) else { return nil }
        guard failing.size < bestSize || (failing.size == bestSize && Self.isSmaller(failing.choices, than: current)) else { return nil }
        bestSize = failing.size
        return failing.choices
    }

    static func isSmaller(_ a: [UInt64], than b: [UInt64]) -> Bool {
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
