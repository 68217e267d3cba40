import BenchmarkSupport
import Foundation
import MarbleCore
import Marbles

// MARK: Marble tests, end to end: diagrams → test observables → operator → run → compare

/// The fixed cost of a test: what a suite of many small tests pays per test.
func smallTestBenchmarks() { coldTestBenchmark(events: 10) }

func marbleTestBenchmarks() {
    coldTestBenchmark(events: 1_000)
    hotTestBenchmark()
    higherOrderBenchmarks()
    timingTestBenchmark()
}

func coldTestBenchmark(events n: Int) {
    let parser = MarbleDiagram.Parser()
    do {
        let input = String(repeating: "a-", count: n) + "|"
        let expected = String(repeating: "b-", count: n) + "|"
        let tests = n == 10 ? 1_000 : 20
        compare(
            "cold test of \(n) events → map → run → compare", unit: .microseconds(per: tests),
            [
                Contender("parse both diagrams") {
                    for _ in 0..<tests {
                        precondition(try! parser.parse(input, kind: .cold, values: ["a": 1]).count == n + 1)
                        precondition(try! parser.parse(expected, kind: .expected, values: ["b": 2]).count == n + 1)
                    }
                },
                Contender("an empty run (scheduler, run, flush, checks)") {
                    for _ in 0..<tests { passing { _ in } }
                },
                Contender("marble test (cold, map, expect/toBe, run)") {
                    for _ in 0..<tests {
                        passing { scheduler in
                            let source = scheduler.cold(input, values: ["a": 1])
                            scheduler.expect(source.map { $0 + 1 }).toBe(expected, values: ["b": 2])
                        }
                    }
                },
                Contender("marble test with a subscription check") {
                    for _ in 0..<tests {
                        passing { scheduler in
                            let source = scheduler.cold(input, values: ["a": 1])
                            scheduler.expect(source.map { $0 + 1 }).toBe(expected, values: ["b": 2])
                            scheduler.expect(subscriptions: source.subscriptions).toBe("^" + String(repeating: "-", count: 2 * n - 1) + "!")
                        }
                    }
                },
            ])
    }
}

func hotTestBenchmark() {
    let parser = MarbleDiagram.Parser()
    let n = 1_000
    let hotInput = "^" + String(repeating: "a-", count: n) + "|"
    let hotExpected = String(repeating: "-b", count: n) + "-|"
    compare(
        "hot test of \(n) events → map → run → compare", unit: .microseconds(per: 20),
        [
            Contender("parse both diagrams") {
                for _ in 0..<20 {
                    precondition(try! parser.parse(hotInput, kind: .hot, values: ["a": 1]).count == n + 1)
                    precondition(try! parser.parse(hotExpected, kind: .expected, values: ["b": 2]).count == n + 1)
                }
            },
            Contender("marble test (hot, map, expect/toBe, run)") {
                for _ in 0..<20 {
                    passing { scheduler in
                        let source = scheduler.hot(hotInput, values: ["a": 1])
                        scheduler.expect(source.map { $0 + 1 }).toBe(hotExpected, values: ["b": 2])
                    }
                }
            },
        ])
}

/// Timing operators under test: 1,000 values through `delay` and `debounce` on the test scheduler.
func timingTestBenchmark() {
    let parser = MarbleDiagram.Parser()
    let n = 1_000
    let input = String(repeating: "a-", count: n) + "|"
    // Values every 2 frames: delay(2) shifts them, debounce(1) lets each through a frame later.
    let delayed = recordedDiagram { s in s.cold(input).delay(.milliseconds(2), scheduler: s) }
    let debounced = recordedDiagram { s in s.cold(input).debounce(.milliseconds(1), scheduler: s) }
    precondition(delayed.hasPrefix("--a-a-") && debounced.hasPrefix("-a-a-"), "\(delayed.prefix(12)) \(debounced.prefix(12))")
    let throttled = recordedDiagram { s in s.cold(input).throttle(.milliseconds(3), scheduler: s) }
    let timedOut = recordedDiagram { s in s.cold(input).timeout(.milliseconds(5), scheduler: s) }
    let sampled = recordedDiagram { s in s.cold(input).sample(Observable<Int>.interval(.milliseconds(4), scheduler: s)) }
    compare(
        "timing operators, \(n) events", unit: .microseconds(per: 10),
        [
            Contender("parse the diagrams") {
                for _ in 0..<10 {
                    precondition(try! parser.parse(input, kind: .cold).count == n + 1)
                    precondition(try! parser.parse(delayed, kind: .expected).count == n + 1)
                }
            },
            Contender("delay(2 frames)") {
                for _ in 0..<10 {
                    passing { s in s.expect(s.cold(input).delay(.milliseconds(2), scheduler: s)).toBe(delayed) }
                }
            },
            Contender("debounce(1 frame)") {
                for _ in 0..<10 {
                    passing { s in s.expect(s.cold(input).debounce(.milliseconds(1), scheduler: s)).toBe(debounced) }
                }
            },
            Contender("throttle(3 frames)") {
                for _ in 0..<10 {
                    passing { s in s.expect(s.cold(input).throttle(.milliseconds(3), scheduler: s)).toBe(throttled) }
                }
            },
            Contender("timeout(5 frames)") {
                for _ in 0..<10 {
                    passing { s in s.expect(s.cold(input).timeout(.milliseconds(5), scheduler: s)).toBe(timedOut) }
                }
            },
            Contender("sample(every 4 frames)") {
                for _ in 0..<10 {
                    passing { s in s.expect(s.cold(input).sample(Observable<Int>.interval(.milliseconds(4), scheduler: s))).toBe(sampled) }
                }
            },
        ])
}

/// 1,000 outer values, three frames apart, each mapped to a cold inner of 10 values.
func higherOrderBenchmarks() {
    let outer = String(repeating: "a--", count: 1_000) + "|"
    let inner = "-0-1-2-3-4-5-6-7-8-9|"
    let flatMapped = recordedDiagram { s in s.cold(outer).flatMap { _ in s.cold(inner) }.asObservable() }
    let latest = recordedDiagram { s in s.cold(outer).flatMapLatest { _ in s.cold(inner) }.asObservable() }
    let parser = MarbleDiagram.Parser()
    compare(
        "higher-order test, 1,000 outer × 10 inner cold", unit: .microseconds(per: 1),
        [
            Contender("parse the diagrams") {
                precondition(try! parser.parse(outer, kind: .cold).count == 1_001)
                for _ in 0..<1_000 { precondition(try! parser.parse(inner, kind: .cold).count == 11) }
                precondition(try! parser.parse(flatMapped, kind: .expected).count == 10_001)
            },
            Contender("flatMap") {
                passing { s in s.expect(s.cold(outer).flatMap { _ in s.cold(inner) }).toBe(flatMapped) }
            },
            Contender("flatMapLatest") {
                passing { s in s.expect(s.cold(outer).flatMapLatest { _ in s.cold(inner) }).toBe(latest) }
            },
        ])
}

/// The flatMapLatest test alone, for profiling (`--only latest-loop`, PROFILE_TESTS times).
func flatMapLatestProfile() {
    let outer = String(repeating: "a--", count: 1_000) + "|"
    let inner = "-0-1-2-3-4-5-6-7-8-9|"
    let latest = recordedDiagram { s in s.cold(outer).flatMapLatest { _ in s.cold(inner) }.asObservable() }
    let tests = Int(ProcessInfo.processInfo.environment["PROFILE_TESTS"] ?? "") ?? 200
    for _ in 0..<tests {
        passing { s in s.expect(s.cold(outer).flatMapLatest { _ in s.cold(inner) }).toBe(latest) }
    }
}

/// The 1,000-event `delay` test alone, for profiling (`--only delay-loop`, PROFILE_TESTS times).
func delayProfile() {
    let input = String(repeating: "a-", count: 1_000) + "|"
    let delayed = recordedDiagram { s in s.cold(input).delay(.milliseconds(2), scheduler: s) }
    let tests = Int(ProcessInfo.processInfo.environment["PROFILE_TESTS"] ?? "") ?? 2_000
    for _ in 0..<tests {
        passing { s in s.expect(s.cold(input).delay(.milliseconds(2), scheduler: s)).toBe(delayed) }
    }
}

/// The 10-event test's phases, each added to the one before (`--only test-phases`): where a
/// small test's fixed cost goes.
/// The 10-event cold test alone, for profiling (`--only small-test-loop`; SMALL_EVENTS=n for
/// another count, to tell the fixed cost from the per-event one).
func smallTestProfile() {
    let events = Int(ProcessInfo.processInfo.environment["SMALL_EVENTS"] ?? "") ?? 10
    let input = String(repeating: "a-", count: events) + "|"
    let expected = String(repeating: "b-", count: events) + "|"
    let tests = Int(ProcessInfo.processInfo.environment["PROFILE_TESTS"] ?? "") ?? 300_000
    for _ in 0..<tests {
        passing { scheduler in
            scheduler.expect(scheduler.cold(input, values: ["a": 1]).map { $0 + 1 }).toBe(expected, values: ["b": 2])
        }
    }
}

func emptyRunProfile() {
    let tests = Int(ProcessInfo.processInfo.environment["PROFILE_TESTS"] ?? "") ?? 2_000_000
    for _ in 0..<tests { passing { _ in } }
}

func testPhasesProfile() {
    let events = Int(ProcessInfo.processInfo.environment["PHASE_EVENTS"] ?? "") ?? 10
    let input = String(repeating: "a-", count: events) + "|"
    let expected = String(repeating: "b-", count: events) + "|"
    let tests = 1_000
    let collector = MarbleFailure.Collector()
    compare(
        "a \(events)-event test, phase by phase", unit: .microseconds(per: tests),
        [
            Contender("TestScheduler() and its release") {
                for _ in 0..<tests { _ = TestScheduler(reporter: collector) }
            },
            Contender("+ run { } (empty)") {
                for _ in 0..<tests { TestScheduler(reporter: collector).run {} }
            },
            Contender("+ cold(…)") {
                for _ in 0..<tests {
                    let s = TestScheduler(reporter: collector)
                    s.run { _ = s.cold(input, values: ["a": 1]) }
                }
            },
            Contender("+ expect(cold.map)") {
                for _ in 0..<tests {
                    let s = TestScheduler(reporter: collector)
                    s.run { _ = s.expect(s.cold(input, values: ["a": 1]).map { $0 + 1 }) }
                }
            },
            Contender("+ toBe(…): the whole test") {
                for _ in 0..<tests {
                    let s = TestScheduler(reporter: collector)
                    s.run { s.expect(s.cold(input, values: ["a": 1]).map { $0 + 1 }).toBe(expected, values: ["b": 2]) }
                }
            },
        ])
    precondition(collector.failures.isEmpty, "\(collector.failures)")
}
