import BenchmarkSupport
import Foundation
import MallocInterposerSwift
import MarbleCore
import Marbles

// Allocations per event of the operators and the harness (issue 70): `make bench-allocs` runs
// this with ordo-one's malloc interposer preloaded (LD_PRELOAD), which counts every malloc,
// calloc, realloc and posix_memalign of the process while hooked. Each row is the count for one
// test, and for the per-event rows the marginal count per event: (count at 2n − count at n) / n,
// so the test's fixed cost drops out. Counts, not times: they do not vary from run to run.

/// The allocations `body` makes (the fewest of three runs: a first run may fill caches).
func mallocs(_ body: () -> Void) -> Int {
    var fewest = Int.max
    for _ in 0..<3 {
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
        body()
        MallocInterposerSwift.unhook()
        fewest = min(fewest, Int(MallocInterposerSwift.getStatistics().mallocCount))
    }
    return fewest
}

/// A row: its name, the count for one test of `n` events, and the marginal count per event.
func row(_ name: String, events n: Int, _ test: (Int) -> () -> Void) {
    let atN = mallocs(test(n))
    let at2N = mallocs(test(2 * n))
    let perEvent = Double(at2N - atN) / Double(n)
    let name = name.padding(toLength: 58, withPad: " ", startingAt: 0)
    print("  \(name) \(String(format: "%8d", atN))  \(String(format: "%7.2f", perEvent))")
}

MallocInterposerSwift.initialize()
// The interposer counts only when preloaded: a count of zero for a test means it is not.
let probe = mallocs { _ = [Int](repeating: 0, count: 1_000) }
guard probe > 0 else {
    print("the malloc interposer is not loaded: run through `make bench-allocs` (LD_PRELOAD=…/libMallocInterposerSwift.so)")
    exit(2)
}

print("allocations: one test of n events (mallocs), and per extra event (marginal)")
print("  " + "row".padding(toLength: 58, withPad: " ", startingAt: 0) + "   mallocs  per event")
row("an empty run (scheduler, run, flush, checks)", events: 1) { _ in { passing { _ in } } }
row("cold test → map → expect/toBe (n = 10)", events: 10) { n in
    let input = String(repeating: "a-", count: n) + "|"
    let expected = String(repeating: "b-", count: n) + "|"
    return { passing { s in s.expect(s.cold(input, values: ["a": 1]).map { $0 + 1 }).toBe(expected, values: ["b": 2]) } }
}
row("parse of both diagrams alone (n = 10)", events: 10) { n in
    let input = String(repeating: "a-", count: n) + "|"
    let expected = String(repeating: "b-", count: n) + "|"
    let parser = MarbleDiagram.Parser()
    return {
        _ = try! parser.parse(input, kind: .cold, values: ["a": 1])
        _ = try! parser.parse(expected, kind: .expected, values: ["b": 2])
    }
}

/// A timing operator's row: `n` values two frames apart through `apply`, expected as recorded.
func timing(_ name: String, _ apply: @escaping (Observable<String>, TestScheduler) -> Observable<String>) {
    row(name, events: 1_000) { n in
        let input = String(repeating: "a-", count: n) + "|"
        let expected = recordedDiagram { s in apply(s.cold(input).asObservable(), s) }
        return { passing { s in s.expect(apply(s.cold(input).asObservable(), s)).toBe(expected) } }
    }
}

timing("delay(2 frames), 1,000 events") { $0.delay(.milliseconds(2), scheduler: $1) }
timing("debounce(1 frame)") { $0.debounce(.milliseconds(1), scheduler: $1) }
timing("throttle(3 frames)") { $0.throttle(.milliseconds(3), scheduler: $1) }
timing("sample(every 4 frames)") { source, s in source.sample(Observable<Int>.interval(.milliseconds(4), scheduler: s)) }
timing("timeout(5 frames)") { $0.timeout(.milliseconds(5), scheduler: $1) }

/// A higher-order row: `n` outer values three frames apart, each a cold inner of 10 values.
func higherOrder(_ name: String, _ apply: @escaping (Observable<String>, TestScheduler) -> Observable<String>) {
    row(name, events: 1_000) { n in
        let outer = String(repeating: "a--", count: n) + "|"
        let expected = recordedDiagram { s in apply(s.cold(outer).asObservable(), s) }
        return { passing { s in s.expect(apply(s.cold(outer).asObservable(), s)).toBe(expected) } }
    }
}

let inner = "-0-1-2-3-4-5-6-7-8-9|"
higherOrder("flatMap, 1,000 outer × 10 inner (per outer value)") { source, s in source.flatMap { _ in s.cold(inner) }.asObservable() }
higherOrder("flatMapLatest, 1,000 × 10 (per outer value)") { source, s in source.flatMapLatest { _ in s.cold(inner) }.asObservable() }
