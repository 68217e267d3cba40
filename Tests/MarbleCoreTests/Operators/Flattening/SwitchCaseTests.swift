import MarblesTesting
import Testing

@Suite("switchCase and if (RAC switch:cases:default:, if:then:else:)")
struct SwitchCaseTests {
    @Test("every new key switches to its case, unsubscribing the previous one")
    func switchesOnEveryKey() {
        marbles { s in
            let keys = s.hot("-a-----b----|")
            let a = s.cold("--1-2-3|")
            let b = s.cold("-x-y|")
            s.expect(Observable.switchCase(keys, cases: ["a": a.asObservable(), "b": b.asObservable()])).toBe("---1-2--x-y-|")
            s.expect(subscriptions: a.subscriptions).toBe("-^-----!")
            s.expect(subscriptions: b.subscriptions).toBe("-------^---!")
        }
    }

    @Test("completes only when the keys and the current case have completed")
    func completion() {
        marbles { s in
            let keys = s.hot("-a|")
            let a = s.cold("---1--|")
            s.expect(Observable.switchCase(keys, cases: ["a": a.asObservable()])).toBe("----1--|")
        }
    }

    @Test("an unknown key without a default is an error; with a default it uses the default")
    func unknownKey() {
        marbles { s in
            let keys = s.hot("-a--z--|")
            let a = s.cold("-1-----|")
            let d = s.cold("d|")
            s.expect(Observable.switchCase(keys, cases: ["a": a.asObservable()])).toBe("--1-#", error: RxError.noCase(key: "z"))
            s.expect(Observable.switchCase(keys, cases: ["a": a.asObservable()], default: d.asObservable())).toBe("--1-d--|")
        }
    }

    @Test("errors of the keys or of the current case end the stream")
    func errors() {
        marbles { s in
            let a = s.cold("-1-#")
            s.expect(Observable.switchCase(s.hot("-a---|"), cases: ["a": a.asObservable()])).toBe("--1-#")
            s.expect(Observable.switchCase(s.hot("-a-#"), cases: ["a": s.cold("-1-2-").asObservable()])).toBe("--1#")
        }
    }

    @Test("unsubscribing releases the keys and the current case")
    func disposal() {
        marbles { s in
            let keys = s.hot("-a------|")
            let a = s.cold("-1-2-3-4|")
            s.expect(Observable.switchCase(keys, cases: ["a": a.asObservable()]), unsubscribe: "^----!").toBe("--1-2")
            s.expect(subscriptions: keys.subscriptions).toBe("^----!")
            s.expect(subscriptions: a.subscriptions).toBe("-^---!")
        }
    }

    @Test("if follows then on true and else on false, switching on each condition")
    func ifThenElse() {
        marbles { s in
            let conditions = s.hot("-t---f---t-|", values: ["t": true, "f": false])
            let yes = s.cold("y-y-y-y|")
            let no = s.cold("n-n-n-n|")
            s.expect(Observable.if(conditions, then: yes.asObservable(), else: no.asObservable())).toBe("-y-y-n-n-y-y-y-y|")
        }
    }
}
