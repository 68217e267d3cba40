import MarbleCore
import MarblesTesting
import Testing

@Suite("Filtering operators")
struct FilteringTests {
    @Test("filter passes matching values, forwards completion and errors")
    func filter() {
        marbles { s in
            let e1 = s.hot("--1--2--3--4--|", values: ["1": 1, "2": 2, "3": 3, "4": 4])
            s.expect(e1.filter { $0 % 2 == 0 }).toBe("-----2-----4--|", values: ["2": 2, "4": 4])
            s.expect(subscriptions: e1.subscriptions).toBe("^-------------!")
            s.expect(s.cold("--1--#", values: ["1": 1]).filter { $0 > 5 }).toBe("-----#", values: ["1": 1])
            let throwing = s.cold("--1--2--|", values: ["1": 1, "2": 2]).filter {
                if $0 == 2 { throw TestError() }
                return true
            }
            s.expect(throwing).toBe("--1--#", values: ["1": 1], error: TestError())
        }
    }

    @Test("filter stops at unsubscription")
    func filterUnsubscribe() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.filter { _ in true }, unsubscribe: "^---!").toBe("--a--")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }

    @Test("distinctUntilChanged drops consecutive repeats")
    func distinctUntilChanged() {
        marbles { s in
            s.expect(s.cold("-a-a-b-a-a-|").distinctUntilChanged()).toBe("-a---b-a---|")
            s.expect(s.cold("-a-A-b-#").distinctUntilChanged(by: { $0.lowercased() })).toBe("-a---b-#")
        }
    }

    @Test("take emits the first values, then completes and unsubscribes (RxJS take)")
    func take() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.take(2)).toBe("--a--(b|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
            s.expect(s.cold("--a--#").take(3)).toBe("--a--#")
            let untouched = s.cold("--a--|")
            s.expect(untouched.take(0)).toBe("|")
            s.expect(subscriptions: untouched.subscriptions).toBe([String]())
        }
    }

    @Test("take(1) stops a synchronous endless source")
    func takeStopsSynchronousSource() {
        var produced = 0
        let endless = Observable<Int>.create { observer in
            while !observer.isDisposed {
                produced += 1
                observer.onNext(produced)
            }
            return Disposables.create()
        }
        var values: [Int] = []
        endless.take(3).subscribe(onNext: { values.append($0) })
        #expect(values == [1, 2, 3])
        #expect(produced == 3)
    }

    @Test("takeLast emits the last values at completion")
    func takeLast() {
        marbles { s in
            s.expect(s.cold("--a--b--c--|").takeLast(2)).toBe("-----------(bc|)")
            s.expect(s.cold("--a--|").takeLast(3)).toBe("-----(a|)")
            s.expect(s.cold("--a--#").takeLast(3)).toBe("-----#")
        }
    }

    @Test("takeLast(0) completes at once without subscribing to the source, as RxJS's EMPTY")
    func takeLastZero() {
        marbles { s in
            let source = s.cold("--a--|")
            s.expect(source.takeLast(0)).toBe("|")
            s.expect(s.hot("--a--|").takeLast(-1)).toBe("|")
            s.expect(subscriptions: source.subscriptions).toBe([])
        }
    }

    @Test("take(while:) completes at the first failing value; inclusive emits it")
    func takeWhile() {
        marbles { s in
            let e1 = s.hot("--1--2--3--4--|", values: ["1": 1, "2": 2, "3": 3, "4": 4])
            s.expect(e1.take(while: { $0 < 3 })).toBe("--1--2--|", values: ["1": 1, "2": 2])
            s.expect(e1.take(while: { $0 < 3 }, inclusive: true)).toBe("--1--2--(3|)", values: ["1": 1, "2": 2, "3": 3])
            s.expect(subscriptions: e1.subscriptions).toBe(["^-------!", "^-------!"])
        }
    }

    @Test("take(until:) completes when the notifier emits (RxJS takeUntil)")
    func takeUntil() {
        marbles { s in
            let e1 = s.hot("--a--b--c--d--e--f--g--|")
            let e2 = s.hot("-------------z--|")
            s.expect(e1.take(until: e2)).toBe("--a--b--c--d-|")
            s.expect(subscriptions: e1.subscriptions).toBe("^------------!")
            s.expect(subscriptions: e2.subscriptions).toBe("^------------!")
        }
    }

    @Test("take(until:) ignores a notifier that completes silently, forwards its error")
    func takeUntilSilentNotifier() {
        marbles { s in
            let e1 = s.hot("--a--b--|")
            s.expect(e1.take(until: s.hot("--|"))).toBe("--a--b--|")
            s.expect(s.hot("--a--b--|").take(until: s.hot("----#"))).toBe("--a-#")
        }
    }

    @Test("skip drops the first values")
    func skip() {
        marbles { s in
            s.expect(s.cold("--a--b--c--|").skip(2)).toBe("--------c--|")
            s.expect(s.cold("--a--#").skip(2)).toBe("-----#")
        }
    }

    @Test("skip(while:) drops values until the predicate first fails")
    func skipWhile() {
        marbles { s in
            let e1 = s.cold("-1-2-3-1-|", values: ["1": 1, "2": 2, "3": 3])
            s.expect(e1.skip(while: { $0 < 3 })).toBe("-----3-1-|", values: ["1": 1, "3": 3])
        }
    }

    @Test("skip(until:) drops values until the notifier emits; a silent notifier drops all (RxJS skipUntil)")
    func skipUntil() {
        marbles { s in
            let e1 = s.hot("--a--b--c--d--|")
            let e2 = s.hot("-------x-------|")
            s.expect(e1.skip(until: e2)).toBe("--------c--d--|")
            s.expect(subscriptions: e2.subscriptions).toBe("^------!")
            s.expect(s.hot("--a--b--|").skip(until: s.hot("---|"))).toBe("--------|")
            s.expect(s.hot("--a--b--|").skip(until: s.hot("---#"))).toBe("---#")
        }
    }

    @Test("first emits the first (matching) value or fails with noElements (RxJS first)")
    func first() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.first()).toBe("--(a|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^-!")
            s.expect(s.hot("--a--b--c--|").first(where: { $0 == "b" })).toBe("-----(b|)")
            s.expect(s.cold("-----|").first()).toBe("-----#", error: RxError.noElements)
            s.expect(s.cold("--#").first()).toBe("--#")
        }
    }

    @Test("last emits the last (matching) value at completion or fails with noElements")
    func last() {
        marbles { s in
            s.expect(s.cold("--a--b--c--|").last()).toBe("-----------(c|)")
            s.expect(s.cold("--a--b--c--|").last(where: { $0 != "c" })).toBe("-----------(b|)")
            s.expect(s.cold("----|").last()).toBe("----#", error: RxError.noElements)
        }
    }

    @Test("elementAt emits the n-th value, its default, or fails out of range")
    func elementAt() {
        marbles { s in
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.elementAt(1)).toBe("-----(b|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
            s.expect(s.cold("--a--|").elementAt(3)).toBe("-----#", error: RxError.argumentOutOfRange)
            s.expect(s.cold("--a--|").elementAt(3, defaultValue: "d")).toBe("-----(d|)")
        }
    }

    @Test("ignoreElements keeps only the terminal event")
    func ignoreElements() {
        marbles { s in
            s.expect(s.cold("--a--b--|").ignoreElements()).toBe("--------|")
            s.expect(s.cold("--a--#").ignoreElements()).toBe("-----#")
        }
    }

    @Test("ifEmpty emits the default for an empty source only")
    func ifEmpty() {
        marbles { s in
            s.expect(s.cold("----|").ifEmpty(default: "x")).toBe("----(x|)")
            s.expect(s.cold("--a-|").ifEmpty(default: "x")).toBe("--a-|")
            s.expect(s.cold("---#").ifEmpty(default: "x")).toBe("---#")
        }
    }
}
