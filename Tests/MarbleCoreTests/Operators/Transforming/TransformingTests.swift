import MarbleCore
import MarblesTesting
import Testing

@Suite("Transforming operators")
struct TransformingTests {
    @Test("map transforms values and keeps timing, completion and subscription")
    func mapValues() {
        marbles { s in
            let e1 = s.cold("--a--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            s.expect(e1.map { $0 * 10 }).toBe("--x--y--z--|", values: ["x": 10, "y": 20, "z": 30])
            s.expect(subscriptions: e1.subscriptions).toBe("^----------!")
        }
    }

    @Test("map turns a thrown error into an error event and unsubscribes")
    func mapThrows() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            let mapped = e1.map { value -> Int in
                if value == 2 { throw TestError() }
                return value
            }
            s.expect(mapped).toBe("--a--#", values: ["a": 1], error: TestError())
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
    }

    @Test("map forwards the source's error")
    func mapError() {
        marbles { s in
            s.expect(s.cold("--a--#").map { $0 + "!" }).toBe("--x--#", values: ["x": "a!"])
        }
    }

    @Test("map is unsubscribed with the subscriber")
    func mapUnsubscribe() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.map { $0 }, unsubscribe: "----!").toBe("--a--")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }

    @Test("chained maps compose in order")
    func mapChain() {
        let source = Observable.from([1, 2, 3])
        let fused = source.map { $0 + 1 }.map { $0 * 10 }.map { "\($0)" }
        var values: [String] = []
        fused.subscribe(onNext: { values.append($0) })
        #expect(values == ["20", "30", "40"])
    }

    @Test("compactMap drops nil results")
    func compactMap() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|", values: ["a": "1", "b": "x", "c": "3"])
            s.expect(e1.compactMap { Int($0) }).toBe("-a---c-|", values: ["a": 1, "c": 3])
            s.expect(s.cold("-a-#").compactMap { Int($0) }).toBe("---#")
        }
    }

    @Test("scan emits every accumulation")
    func scan() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            s.expect(e1.scan(0, accumulator: +)).toBe("--x--y--z--|", values: ["x": 1, "y": 3, "z": 6])
            let failing = s.hot("--a--b--|", values: ["a": 1, "b": 2])
            s.expect(
                failing.scan(0) { acc, x in
                    if x == 2 { throw TestError() }
                    return acc + x
                }
            )
            .toBe("--a--#", values: ["a": 1], error: TestError())
            let erroring = s.cold("--a--#", values: ["a": 1])
            s.expect(erroring.scan(0, accumulator: +)).toBe("--a--#", values: ["a": 1])
        }
    }

    @Test("reduce emits the total at completion, the seed for an empty source")
    func reduce() {
        marbles { s in
            let e1 = s.cold("--a--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            s.expect(e1.reduce(0, accumulator: +)).toBe("-----------(x|)", values: ["x": 6])
            s.expect(s.cold("-----|", values: ["a": 1]).reduce(7, accumulator: +)).toBe("-----(x|)", values: ["x": 7])
            s.expect(s.cold("--a--#", values: ["a": 1]).reduce(0, accumulator: +)).toBe("-----#", values: ["x": 1])
            let never = s.cold("--a--", values: ["a": 1])
            s.expect(never.reduce(0, accumulator: +), unsubscribe: "---!").toBe("---", values: ["x": 1])
            s.expect(subscriptions: never.subscriptions).toBe("^--!")
        }
    }

    @Test("toArray emits all values at completion, an empty array for an empty source")
    func toArray() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|", values: ["a": 1, "b": 2, "c": 3])
            s.expect(e1.toArray()).toBe("-------(x|)", values: ["x": [1, 2, 3]])
            s.expect(s.cold("--|", values: ["a": 1]).toArray()).toBe("--(x|)", values: ["x": [Int]()])
            s.expect(s.cold("-a-#").toArray()).toBe("---#", values: ["x": [String]()])
        }
    }

    @Test("startWith emits its values synchronously at subscription")
    func startWith() {
        marbles { s in
            let e1 = s.cold("---a--|")
            s.expect(e1.startWith("x", "y")).toBe("[xy]--a--|")
            s.expect(s.cold("--#").startWith("x")).toBe("x-#")
            s.expect(subscriptions: e1.subscriptions).toBe("^-----!")
        }
    }

    @Test("pairwise pairs each value with the previous one")
    func pairwise() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|")
            s.expect(e1.pairwise().map { "\($0)\($1)" }).toBe("---x-y-|", values: ["x": "ab", "y": "bc"])
            s.expect(s.cold("-a-#").pairwise().map { "\($0)\($1)" }).toBe("---#")
        }
    }

    @Test("buffer(count:) emits full buffers and the remainder at completion")
    func bufferCount() {
        marbles { s in
            let e1 = s.hot("-a-b-c-d-e-|")
            s.expect(e1.buffer(count: 2).map { $0.joined() }).toBe("---x---y---(z|)", values: ["x": "ab", "y": "cd", "z": "e"])
            s.expect(s.cold("-a-b-#").buffer(count: 2).map { $0.joined() }).toBe("---x-#", values: ["x": "ab"])
        }
    }

    @Test("buffer(timeSpan:) emits every window, empty ones too, and early when full")
    func bufferTime() {
        marbles { s in
            let e1 = s.hot("-a-b-----c-|")
            let buffered = e1.buffer(timeSpan: .milliseconds(4), scheduler: s).map { $0.joined() }
            // Windows close at 4 and 8; completion at 10 emits the open window.
            s.expect(buffered).toBe("----x---y--(z|)", values: ["x": "ab", "y": "", "z": "c"])
            let e2 = s.hot("-abc------|")
            let full = e2.buffer(timeSpan: .milliseconds(5), count: 2, scheduler: s).map { $0.joined() }
            // Full at 2 (restarts the window: next closes at 7), then 7 and completion at 10.
            s.expect(full).toBe("--x----y--(z|)", values: ["x": "ab", "y": "c", "z": ""])
        }
    }

    @Test("materialize and dematerialize round-trip every event")
    func materialize() {
        marbles { s in
            let e1 = s.cold("-a-#")
            s.expect(e1.materialize().map { "\($0)" }).toBe("-a-(e|)", values: ["a": "next(a)", "e": "error(error)"])
            s.expect(e1.materialize().dematerialize()).toBe("-a-#")
            s.expect(s.cold("-a|").materialize().dematerialize()).toBe("-a|")
        }
    }
}
