import MarbleCore
import MarblesTesting
import Testing

@Suite("Aggregating and end-of-stream operators")
struct AggregatingTests {
    @Test("skipLast lags by count values; completion and errors pass at once (RxJS skipLast)")
    func skipLast() {
        marbles { s in
            let e1 = s.hot("--a-----b--c--d--|")
            s.expect(e1.skipLast(2)).toBe("-----------a--b--|")
            s.expect(subscriptions: e1.subscriptions).toBe("^----------------!")
            s.expect(s.hot("--a--b--c--#").skipLast(1)).toBe("-----a--b--#")
            s.expect(s.hot("--a--b--c--d--|").skipLast(0)).toBe("--a--b--c--d--|")
            let e2 = s.hot("--a--b--c--d--|")
            s.expect(e2.skipLast(1), unsubscribe: "^-------!").toBe("-----a--")
            s.expect(subscriptions: e2.subscriptions).toBe("^-------!")
        }
    }

    @Test("endWith emits its values in the completion's frame; an error skips them")
    func endWith() {
        marbles { s in
            s.expect(s.hot("--a--b--|").endWith("y", "z")).toBe("--a--b--(yz|)")
            s.expect(s.hot("--a--#").endWith("z")).toBe("--a--#")
            s.expect(s.cold("|").endWith("z")).toBe("(z|)")
            let e1 = s.hot("--a--b--|")
            s.expect(e1.endWith("z"), unsubscribe: "^----!").toBe("--a--")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
    }

    @Test("count emits the number of (matching) values at completion")
    func count() {
        marbles { s in
            s.expect(s.hot("--a--b--c--|").count()).toBe("-----------(n|)", values: ["n": 3])
            s.expect(s.hot("--1--2--3--|", values: ["1": 1, "2": 2, "3": 3]).count(where: { $0 % 2 == 1 }))
                .toBe("-----------(n|)", values: ["n": 2])
            s.expect(s.cold("|").count()).toBe("(n|)", values: ["n": 0])
            s.expect(s.hot("--a--#").count()).toBe("-----#", values: [String: Int]())
            s.expect(s.hot("--a--b--|").count(where: { _ in throw TestError() }))
                .toBe("--#", values: [String: Int](), error: TestError())
            let e1 = s.hot("--a--b--|")
            s.expect(e1.count(), unsubscribe: "^----!").toBe("-----", values: [String: Int]())
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
    }

    @Test("isEmpty: false at the first value, unsubscribing; true at an empty completion")
    func isEmpty() {
        marbles { s in
            let e1 = s.hot("--a--b--|")
            s.expect(e1.isEmpty()).toBe("--(f|)", values: ["f": false])
            s.expect(subscriptions: e1.subscriptions).toBe("^-!")
            s.expect(s.hot("-----|").isEmpty()).toBe("-----(t|)", values: ["t": true])
            s.expect(s.hot("---#").isEmpty()).toBe("---#", values: [String: Bool]())
            s.expect(s.hot("-------a").isEmpty(), unsubscribe: "^--!").toBe("---", values: [String: Bool]())
        }
    }

    @Test("every: false at the first failing value, unsubscribing; true when all pass (RAC all:)")
    func every() {
        marbles { s in
            let values = ["1": 1, "2": 2, "3": 3, "4": 4]
            let e1 = s.hot("--2--4--3--4--|", values: values)
            s.expect(e1.every { $0 % 2 == 0 }).toBe("--------(f|)", values: ["f": false])
            s.expect(subscriptions: e1.subscriptions).toBe("^-------!")
            s.expect(s.hot("--2--4--|", values: values).every { $0 % 2 == 0 }).toBe("--------(t|)", values: ["t": true])
            s.expect(s.hot("--2--#", values: values).every { $0 % 2 == 0 }).toBe("-----#", values: [String: Bool]())
            s.expect(s.hot("--2--|", values: values).every { _ in throw TestError() })
                .toBe("--#", values: [String: Bool](), error: TestError())
        }
    }

    @Test("throwIfEmpty fails an empty completion, passes everything else")
    func throwIfEmpty() {
        marbles { s in
            s.expect(s.hot("-----|").throwIfEmpty()).toBe("-----#", error: RxError.noElements)
            s.expect(s.hot("-----|").throwIfEmpty(TestError("none"))).toBe("-----#", error: TestError("none"))
            s.expect(s.hot("--a--|").throwIfEmpty()).toBe("--a--|")
            s.expect(s.hot("--#").throwIfEmpty()).toBe("--#")
            let e1 = s.hot("-------|")
            s.expect(e1.throwIfEmpty(), unsubscribe: "^--!").toBe("---")
            s.expect(subscriptions: e1.subscriptions).toBe("^--!")
        }
    }

    @Test("element(at:) is RxSwift 6's spelling of elementAt")
    func elementAtSpelling() {
        marbles { s in
            s.expect(s.hot("--a--b--c--|").element(at: 1)).toBe("-----(b|)")
            s.expect(s.hot("--a--|").element(at: 3, defaultValue: "d")).toBe("-----(d|)")
        }
    }
}
