import MarbleCore
import MarblesTesting
import Testing

@Suite("Timing operators")
struct TimingTests {
    @Test("delay shifts values; completion waits for the last delayed value (RxJS 7 delay)")
    func delay() {
        marbles { s in
            let e1 = s.hot("--a--b--|")
            s.expect(e1.delay(s.time("---|"), scheduler: s)).toBe("-----a--(b|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^-------!")
            s.expect(s.hot("--a-----|").delay(.milliseconds(2), scheduler: s)).toBe("----a---|")
        }
    }

    @Test("delay passes errors at once, dropping pending values")
    func delayError() {
        marbles { s in
            s.expect(s.hot("--a--#").delay(.milliseconds(3), scheduler: s)).toBe("-----#")
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.delay(.milliseconds(2), scheduler: s), unsubscribe: "^-----!").toBe("----a-")
        }
    }

    @Test("delaySubscription subscribes late")
    func delaySubscription() {
        marbles { s in
            let e1 = s.cold("--a|")
            s.expect(e1.delaySubscription(.milliseconds(2), scheduler: s)).toBe("----a|")
            s.expect(subscriptions: e1.subscriptions).toBe("--^--!")
            let e2 = s.cold("--a|")
            s.expect(e2.delaySubscription(.milliseconds(5), scheduler: s), unsubscribe: "---!").toBe("---")
            s.expect(subscriptions: e2.subscriptions).toBe([String]())
        }
    }

    @Test("debounce emits after a quiet period and flushes the pending value on completion")
    func debounce() {
        marbles { s in
            let e1 = s.hot("-a--bc--d-|")
            s.expect(e1.debounce(.milliseconds(2), scheduler: s)).toBe("---a---c--(d|)")
            s.expect(s.hot("-a--b#").debounce(.milliseconds(2), scheduler: s)).toBe("---a-#")
            let e2 = s.hot("-a--b--c--|")
            s.expect(e2.debounce(.milliseconds(2), scheduler: s), unsubscribe: "^----!").toBe("---a-")
        }
    }

    @Test("throttle without latest emits leading values only (RxJS throttleTime)")
    func throttleLeading() {
        marbles { s in
            let e1 = s.hot("-abc---d-e-|")
            s.expect(e1.throttle(.milliseconds(3), latest: false, scheduler: s)).toBe("-a-----d---|")
        }
    }

    @Test("throttle with latest emits the trailing value when the window ends")
    func throttleLatest() {
        marbles { s in
            let e1 = s.hot("-abc---d-e-|")
            s.expect(e1.throttle(.milliseconds(3), scheduler: s)).toBe("-a--c--d--e|")
        }
    }

    @Test("throttle: a busy producer's value at the window's end is still throttled (RxJS busy-producer case)")
    func throttleEdge() {
        marbles { s in
            let e1 = s.hot("abcdefabcdefabcdefa|")
            s.expect(e1.throttle(.milliseconds(5), latest: false, scheduler: s)).toBe("a-----a-----a-----a|")
        }
    }

    @Test("throttle completion waits for a pending trailing value; errors pass at once")
    func throttleCompletion() {
        marbles { s in
            s.expect(s.hot("-ab|").throttle(.milliseconds(3), scheduler: s)).toBe("-a--(b|)")
            s.expect(s.hot("-ab#").throttle(.milliseconds(3), scheduler: s)).toBe("-a-#")
        }
    }

    @Test("sample emits the latest new value when the notifier fires, completes with the source (RxJS 7)")
    func sample() {
        marbles { s in
            let e1 = s.hot("-a-b----c-|")
            let e2 = s.hot("---x---x-x---|")
            s.expect(e1.sample(e2)).toBe("---b-----c|")
            s.expect(subscriptions: e2.subscriptions).toBe("^---------!")
            s.expect(s.hot("-a-b-|").sample(s.hot("--#"))).toBe("--#")
        }
    }

    @Test("timeout fails when no event arrives in time; each value rearms it")
    func timeout() {
        marbles { s in
            let e1 = s.cold("-a---b|")
            s.expect(e1.timeout(.milliseconds(3), scheduler: s)).toBe("-a--#", error: RxError.timeout)
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
            s.expect(s.cold("-a-b-|").timeout(.milliseconds(3), scheduler: s)).toBe("-a-b-|")
        }
    }

    @Test("timeout with a fallback switches to it")
    func timeoutFallback() {
        marbles { s in
            let fallback = s.cold("x|")
            s.expect(s.cold("-a---b|").timeout(.milliseconds(3), other: fallback, scheduler: s)).toBe("-a--x|")
            s.expect(subscriptions: fallback.subscriptions).toBe("----^!")
        }
    }

    @Test("timer and interval tick in virtual time")
    func timerInterval() {
        marbles { s in
            s.expect(Observable<Int>.timer(.milliseconds(3), scheduler: s)).toBe("---(0|)", values: ["0": 0])
            s.expect(Observable<Int>.interval(.milliseconds(2), scheduler: s).take(3)).toBe("--a-b-(c|)", values: ["a": 0, "b": 1, "c": 2])
            s.expect(Observable<Int>.timer(.milliseconds(1), period: .milliseconds(3), scheduler: s), unsubscribe: "^--------!")
                .toBe("-a--b--c-", values: ["a": 0, "b": 1, "c": 2])
        }
    }

    @Test("an interval without an unsubscription is one clear step-limit failure, not a flood of mismatches")
    func runawayInterval() {
        let reporter = MarbleFailure.Collector()
        let s = TestScheduler(stepLimit: 1_000, reporter: reporter)
        s.run {
            s.expect(Observable<Int>.interval(.milliseconds(2), scheduler: s)).toBe("--a-b-c-", values: ["a": 0, "b": 1, "c": 2])
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures[0].message.contains("unsubscription diagram"))
        #expect(reporter.failures[0].message.contains("1 expectation whose window was still open was not checked"))
        #expect(reporter.failures[0].message.count < 1_000)
    }

    @Test("maxFrames stops a flush at a frame limit")
    func maxFrames() {
        marbles { s in
            s.maxFrames = 5
            s.expect(Observable<Int>.interval(.milliseconds(2), scheduler: s)).toBe("--a-b-", values: ["a": 0, "b": 1])
        }
    }
}
