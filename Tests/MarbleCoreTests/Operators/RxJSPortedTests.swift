import MarbleCore
import MarblesTesting
import Testing

/// Cases written in our syntax after the semantics of RxJS 7's operator spec suite (run mode);
/// each timeline is what RxJS produces for the same diagrams.
@Suite("Ported from RxJS operator specs")
struct RxJSPortedTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var build: @Sendable (TestScheduler) -> (Observable<String>, [(label: String, logs: () -> [SubscriptionLog], expected: [String])])
        var expected: String
        var error: (any Error & Sendable)?
        var testDescription: String { name }

        init(
            _ name: String, _ expected: String, error: (any Error & Sendable)? = nil,
            _ build:
                @escaping @Sendable (TestScheduler) -> (
                    Observable<String>, [(label: String, logs: () -> [SubscriptionLog], expected: [String])]
                )
        ) {
            self.name = name
            self.expected = expected
            self.error = error
            self.build = build
        }
    }

    typealias Subs = [(label: String, logs: () -> [SubscriptionLog], expected: [String])]

    static func subs<O>(_ observable: TestScheduler.ColdObservable<O>, _ expected: String...) -> (
        label: String, logs: () -> [SubscriptionLog], expected: [String]
    ) {
        ("cold", { observable.subscriptions }, expected)
    }

    static func subs<O>(_ observable: TestScheduler.HotObservable<O>, _ expected: String...) -> (
        label: String, logs: () -> [SubscriptionLog], expected: [String]
    ) {
        ("hot", { observable.subscriptions }, expected)
    }

    static let cases: [Case] = [
        Case("map: multiple values", "--x--y--z--|") { s in
            let e1 = s.cold("--1--2--3--|")
            return (e1.map { $0 == "1" ? "x" : $0 == "2" ? "y" : "z" }, [subs(e1, "^----------!")])
        },
        Case("map: errors from the source pass through", "--x--#") { s in
            (s.cold("--a--#").map { _ in "x" }, [])
        },
        Case("filter: even values of a hot source", "--0-----2-----4--|") { s in
            let e1 = s.hot("--0--1--2--3--4--|")
            return (e1.filter { Int($0)! % 2 == 0 }, [subs(e1, "^----------------!")])
        },
        Case("scan: running concatenation", "--a--x--y--z--|") { s in
            (s.hot("--a--b--c--d--|").scan("") { $0 + $1 }.map { $0.count == 1 ? $0 : $0 == "ab" ? "x" : $0 == "abc" ? "y" : "z" }, [])
        },
        Case("take: two values of many, unsubscribing the source", "--a-----(b|)") { s in
            let e1 = s.cold("--a-----b----c---d--|")
            return (e1.take(2), [subs(e1, "^-------!")])
        },
        Case("take(0): completes without subscribing", "|") { s in
            let e1 = s.hot("--a--^--b----c---d--|")
            return (e1.take(0), [subs(e1)])
        },
        Case("take: propagates the source's error", "----#") { s in (s.hot("---^---#").take(42), []) },
        Case("takeLast: the last two at completion", "--------------------(cd|)") { s in
            (s.hot("--a-----b----c---d--|").takeLast(2), [])
        },
        Case("takeWhile: completes at the first failing value", "--b--c--|") { s in
            let e1 = s.hot("--a-^-b--c--d--e--|")
            return (e1.take(while: { $0 != "d" }), [subs(e1, "^-------!")])
        },
        Case("takeUntil: completes when the notifier emits", "--a--b--c--d-|") { s in
            let e1 = s.hot("--a--b--c--d--e--f--g--|")
            let e2 = s.hot("-------------z--|")
            return (e1.take(until: e2), [subs(e1, "^------------!"), subs(e2, "^------------!")])
        },
        Case("takeUntil: a synchronous notifier completes before subscribing to the source", "|") { s in
            let e1 = s.hot("--a--b--|")
            return (e1.take(until: Observable.of("a")), [subs(e1)])
        },
        Case("skip: drops the first three", "-----------d--e--|") { s in (s.hot("--a--b--c--d--e--|").skip(3), []) },
        Case("skip: an error before enough values", "-----#") { s in (s.hot("--a--#").skip(5), []) },
        Case("skipWhile: drops while below four", "---------4--5--6--|") { s in
            (s.hot("-1-^--2--3--4--5--6--|").skip(while: { Int($0)! < 4 }), [])
        },
        Case("skipUntil: values after the notifier", "-----------d--e----|") { s in
            let e1 = s.hot("--a--b--c--d--e----|")
            let notifier = s.hot("---------x------|")
            return (e1.skip(until: notifier), [subs(notifier, "^--------!")])
        },
        Case("first: the first value after subscription", "---(b|)") { s in
            let e1 = s.hot("--a--^--b--c--|")
            return (e1.first(), [subs(e1, "^--!")])
        },
        Case("first: an empty source fails", "-----#", error: RxError.noElements) { s in (s.hot("-----^----|").first(), []) },
        Case("last: the last value at completion", "-------------(c|)") { s in (s.hot("--a----b--c--|").last(), []) },
        Case("elementAt: the third value", "--------(c|)") { s in
            let e1 = s.hot("--a--b--c-d---|")
            return (e1.elementAt(2), [subs(e1, "^-------!")])
        },
        Case("elementAt: out of range fails", "-----#", error: RxError.argumentOutOfRange) { s in (s.hot("--a--|").elementAt(3), []) },
        Case("ignoreElements: only completion", "-----------|") { s in (s.hot("--a--b--c--|").ignoreElements(), []) },
        Case("defaultIfEmpty: the default on an empty source", "--------(x|)") { s in (s.hot("--------|").ifEmpty(default: "x"), []) },
        Case("startWith: a value at subscription", "s--a--|") { s in (s.hot("---a--|").startWith("s"), []) },
        Case("pairwise: pairs after the second value", "------x--y--|") { s in
            (s.hot("--a--b-^--c--d--e--|").pairwise().map { $0 == "c" && $1 == "d" ? "x" : "y" }, [])
        },
        Case("bufferCount: pairs, no remainder", "-----x-----y-----z--|") { s in
            (s.hot("--a--b--c--d--e--f--|").buffer(count: 2).map { ["ab": "x", "cd": "y", "ef": "z"][$0.joined()]! }, [])
        },
        Case("distinctUntilChanged: drops repeats", "--a--------b-----a--|") { s in
            (s.hot("--a--a--a--b--b--a--|").distinctUntilChanged(), [])
        },
        Case("reduce: the total at completion", "-----------(x|)") { s in
            (s.hot("--a--b--c--|").reduce("") { $0 + $1 }.map { $0 == "abc" ? "x" : "?" }, [])
        },
        Case("merge: hot and hot", "--b--d--c--e-|") { s in
            let e1 = s.hot("---a---^-b-----c----|")
            let e2 = s.hot("-----^----d-----e-|")
            return (Observable.merge(e1, e2), [subs(e1, "^------------!"), subs(e2, "^------------!")])
        },
        Case("merge: an error ends it", "--a-b#") { s in (Observable.merge(s.cold("--a--#"), s.cold("----b--|")), []) },
        Case("concat: the second after the first", "--a--b---x---y-|") { s in
            let e1 = s.cold("--a--b-|")
            let e2 = s.cold("--x---y-|")
            return (e1.concat(e2), [subs(e1, "^------!"), subs(e2, "-------^-------!")])
        },
        Case("concat: never reaches the second if the first never completes", "-----") { s in
            let e2 = s.cold("--|")
            return (
                Observable.concat(s.cold("-"), e2).take(until: s.hot("-----x")).ignoreElements().concat(Observable<String>.never()),
                [subs(e2)]
            )
        },
        Case("switchMap: switches at each outer value", "-----a--b--c----f------j---k---l---m---n---|") { s in
            let x = s.cold("--a--b--c--d--e--|")
            let y = s.cold("---f---g---h---i--|")
            let z = s.cold("----j---k---l---m---n---|")
            let e1 = s.hot("---x---------y-----z--------|", values: ["x": x, "y": y, "z": z])
            return (
                e1.flatMapLatest { $0 },
                [
                    subs(x, "---^---------!"), subs(y, "-------------^-----!"), subs(z, "-------------------^-----------------------!"),
                ]
            )
        },
        Case("exhaustMap: ignores outer values while an inner runs", "-----a--b--c---------g--h--i--|") { s in
            let x = s.cold("--a--b--c--|")
            let y = s.cold("--d--e--f--|")
            let z = s.cold("--g--h--i--|")
            let e1 = s.hot("---x---------y-----z--------|", values: ["x": x, "y": y, "z": z])
            return (e1.flatMapFirst { $0 }, [subs(x, "---^----------!"), subs(y), subs(z, "-------------------^----------!")])
        },
        Case("mergeMap(concurrent: 1) is concatMap", "----a--b--c--d--a--b--c--d|") { s in
            let inner = s.cold("--a--b--c--d|")
            let e1 = s.hot("--x--x--|")
            return (e1.flatMap(maxConcurrent: 1) { _ in inner }, [subs(inner, "--^-----------!", "--------------^-----------!")])
        },
        Case("combineLatest: latest of both, completes after both", "----x-y-z-w-|") { s in
            let e1 = s.hot("-a-^-b---c---d-|")
            let e2 = s.hot("---^---x---y---|")
            return (Observable.combineLatest(e1, e2) { $0 + $1 }.map { ["bx": "x", "cx": "y", "cy": "z", "dy": "w"][$0]! }, [])
        },
        Case("zip: by index; ends when a finished source is empty", "---x--y--z|") { s in
            let e1 = s.hot("-a--b--c--|")
            let e2 = s.hot("---1--2--3-----|")
            return (Observable.zip(e1, e2) { $0 + $1 }.map { ["a1": "x", "b2": "y", "c3": "z"][$0]! }, [subs(e2, "^---------!")])
        },
        Case("withLatestFrom: values once the other has one", "----x---y-|") { s in
            let e1 = s.hot("-a--b---c-|")
            let e2 = s.hot("--1---2-|")
            return (e1.withLatestFrom(e2) { $0 + $1 }.map { ["b1": "x", "c2": "y"][$0]! }, [])
        },
        Case("race: the first to emit wins", "-a-----|") { s in
            let e1 = s.cold("-a-----|")
            let e2 = s.cold("----b--|")
            return (e1.amb(e2), [subs(e2, "^!")])
        },
        Case("debounceTime: values after quiet periods", "---a---c--d-|") { s in
            (s.hot("-a--bc--d---|").debounce(.milliseconds(2), scheduler: s), [])
        },
        Case("throttleTime: a busy producer", "a-----a-----a-----a-----a|") { s in
            (s.hot("abcdefabcdefabcdefabcdefa|").throttle(.milliseconds(5), latest: false, scheduler: s), [])
        },
        Case("delay: values later, completion with the last one", "------a--(b|)") { s in
            (s.hot("---a--b--|").delay(.milliseconds(3), scheduler: s), [])
        },
        Case("sample: the latest value at each notifier value; the source completes first at a tie", "----------c----d--|") { s in
            let e1 = s.hot("----a-^--b----c----d--e-|")
            let e2 = s.hot("-----^---------x----y--z---|")
            return (e1.sample(e2), [subs(e2, "^-----------------!")])
        },
        Case("catchError: continues with the replacement", "--a--b---1-2-3-|") { s in
            let e2 = s.cold("-1-2-3-|")
            return (s.cold("--a--b--#").catch { _ in e2 }, [subs(e2, "--------^------!")])
        },
        Case("retry(2): three subscriptions, then the error", "--1-2---1-2---1-2-#") { s in
            let e1 = s.cold("--1-2-#")
            return (e1.retry(2), [subs(e1, "^-----!", "------^-----!", "------------^-----!")])
        },
        Case("timeout: errors when the source is silent too long", "-----a----#", error: RxError.timeout) { s in
            (s.cold("-----a---------b----|").timeout(.milliseconds(5), scheduler: s), [])
        },
    ]

    @Test("RxJS timing", arguments: cases)
    func ported(_ c: Case) {
        marbles { s in
            let (observable, subscriptions) = c.build(s)
            if let error = c.error {
                s.expect(observable).toBe(c.expected, error: error)
            } else {
                s.expect(observable).toBe(c.expected)
            }
            for sub in subscriptions {
                s.expect(subscriptions: sub.logs()).toBe(sub.expected)
            }
        }
    }
}
