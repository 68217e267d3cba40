import MarbleCore
import MarblesTesting
import Testing

@Suite("Combining operators")
struct CombiningTests {
    @Test("combineLatest emits once every source has a value, completes after all")
    func combineLatest() {
        marbles { s in
            let e1 = s.hot("-a--b---c-|")
            let e2 = s.hot("--1---2----|")
            s.expect(Observable.combineLatest(e1, e2) { $0 + $1 }).toBe(
                "--x-y-z-w--|", values: ["x": "a1", "y": "b1", "z": "b2", "w": "c2"])
            s.expect(subscriptions: e1.subscriptions).toBe("^---------!")
            s.expect(subscriptions: e2.subscriptions).toBe("^----------!")
        }
    }

    @Test("combineLatest completes at once when a source completes without a value (RxJS 7)")
    func combineLatestEmptySource() {
        marbles { s in
            let e1 = s.hot("---|")
            let e2 = s.hot("--a--b--|")
            s.expect(e1.combineLatest(e2) { $0 + $1 }).toBe("---|")
            s.expect(subscriptions: e2.subscriptions).toBe("^--!")
        }
    }

    @Test("combineLatest of three and of an array; errors end it")
    func combineLatestArity() {
        marbles { s in
            let a = s.hot("a------|")
            let b = s.hot("-b-----|")
            let c = s.hot("--c-C--|")
            s.expect(Observable.combineLatest(a, b, c) { $0 + $1 + $2 }).toBe("--x-y--|", values: ["x": "abc", "y": "abC"])
            s.expect(Observable.combineLatest([a, b, c]).map { $0.joined() }).toBe("--x-y--|", values: ["x": "abc", "y": "abC"])
            s.expect(Observable.combineLatest(a, s.hot("---#")) { $0 + $1 }).toBe("---#")
            s.expect(Observable<String>.combineLatest([TestScheduler.ColdObservable<String>]())).toBe("|")
        }
    }

    @Test("zip pairs values by index and completes when a finished source has nothing buffered (RxJS 7)")
    func zip() {
        marbles { s in
            let e1 = s.cold("-a-b-c-|")
            let e2 = s.cold("--1--2--3--|")
            s.expect(Observable.zip(e1, e2) { $0 + $1 }).toBe("--x--y--(z|)", values: ["x": "a1", "y": "b2", "z": "c3"])
            s.expect(subscriptions: e2.subscriptions).toBe("^-------!")
            s.expect(Observable.zip(s.cold("-a-b-|"), s.cold("---#")) { $0 + $1 }).toBe("---#")
            s.expect(Observable.zip(s.cold("-a|"), s.cold("---1--2|")) { ($0, $1) }.map { $0 + $1 }).toBe("---(x|)", values: ["x": "a1"])
        }
    }

    @Test("zip of three and of arrays")
    func zipArity() {
        marbles { s in
            let a = s.cold("ab|")
            let b = s.cold("-12|")
            let c = s.cold("--xy|")
            s.expect(Observable.zip(a, b, c) { $0 + $1 + $2 }).toBe("--p(q|)", values: ["p": "a1x", "q": "b2y"])
            s.expect(Observable.zip([a, b, c]).map { $0.joined() }).toBe("--p(q|)", values: ["p": "a1x", "q": "b2y"])
        }
    }

    @Test("withLatestFrom combines with the other's latest value and completes with the source")
    func withLatestFrom() {
        marbles { s in
            let e1 = s.hot("-a--b---c-|")
            let e2 = s.hot("--1---2-|")
            s.expect(e1.withLatestFrom(e2) { $0 + $1 }).toBe("----x---y-|", values: ["x": "b1", "y": "c2"])
            s.expect(subscriptions: e2.subscriptions).toBe("^-------!")
            s.expect(s.hot("-a--b--|").withLatestFrom(s.hot("---#"))).toBe("---#")
            s.expect(s.hot("-a--b--|").withLatestFrom(s.hot("1-|"))).toBe("-1--1--|")
        }
    }

    @Test("amb mirrors the first source to emit and unsubscribes the rest (RxJS race)")
    func amb() {
        marbles { s in
            let e1 = s.cold("---a--|")
            let e2 = s.cold("-b---c|")
            s.expect(e1.amb(e2)).toBe("-b---c|")
            s.expect(subscriptions: e1.subscriptions).toBe("^!")
            s.expect(subscriptions: e2.subscriptions).toBe("^-----!")
            s.expect(Observable.amb([s.cold("--#"), s.cold("---a|")])).toBe("--#")
        }
    }
}
