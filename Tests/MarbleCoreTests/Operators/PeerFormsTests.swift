import MarbleCore
import MarblesTesting
import Testing

/// The operator forms RxJS users reach for (issue 28 §1): duration selectors for audit and
/// throttle, windowTime with a count or a creation interval, comparers, predicates with defaults,
/// and share's reset options.
@Suite("RxJS operator forms: duration selectors, windowTime variants, comparers, find, share resets")
struct PeerFormsTests {
    @Test("audit(durationSelector): the latest value when the duration emits; a completing duration emits nothing")
    func auditSelector() {
        marbles { s in
            let source = s.cold("-a-b-----c-d----|")
            let durations = [s.cold("---x"), s.cold("---x")]
            var index = 0
            s.expect(
                source.audit { _ -> TestScheduler.ColdObservable<String> in
                    defer { index += 1 }
                    return durations[index]
                }
            ).toBe("----b-------d---|")
            s.expect(subscriptions: durations[0].subscriptions).toBe("-^--!")
            s.expect(subscriptions: durations[1].subscriptions).toBe("---------^--!")
            // A duration that completes without a value ends the wait silently.
            s.expect(s.cold("-a--|").audit { _ in s.cold("--|") }).toBe("----|")
            // Completion during a wait waits for the value.
            s.expect(s.cold("-a-|").audit { _ in s.cold("---x") }).toBe("----(a|)")
            // Errors from either side, and from the selector.
            s.expect(s.cold("-a-#").audit { _ in s.cold("---x") }).toBe("---#")
            s.expect(s.cold("-a----|").audit { _ in s.cold("-#") }).toBe("--#")
            s.expect(s.cold("-a----|").audit { _ -> Observable<Int> in throw TestError() }).toBe("-#", error: TestError())
        }
    }

    @Test("audit(durationSelector) releases the source and the duration at unsubscription")
    func auditSelectorUnsubscribe() {
        marbles { s in
            let source = s.hot("-a-b-----c--|")
            let duration = s.cold("-----x")
            s.expect(source.audit { _ in duration }, unsubscribe: "^---!").toBe("----")
            s.expect(subscriptions: source.subscriptions).toBe("^---!")
            s.expect(subscriptions: duration.subscriptions).toBe("-^--!")
        }
    }

    @Test("throttle(durationSelector): leading by default; a completing duration ends the window (RxJS spec case)")
    func throttleSelector() {
        marbles { s in
            // RxJS's own case: cold('-a--b-c--d-e-') throttled by cold('--|') gives '-a--b----d---'.
            s.expect(s.cold("-a--b-c--d-e-").throttle { _ in s.cold("--|") }).toBe("-a--b----d---")
            s.expect(s.cold("-a-b-c----d---|").throttle { _ in s.cold("---x") }).toBe("-a---c----d---|")
        }
    }

    @Test("throttle(leading:trailing:) with a duration selector: trailing values open the next window; completion waits for one")
    func throttleSelectorTrailing() {
        marbles { s in
            let duration = { (_: String) in s.cold("---x") }
            s.expect(s.cold("-a-b-------d---|").throttle(trailing: true, duration)).toBe("-a--b------d---|")
            s.expect(s.cold("-a-b-------d---|").throttle(leading: false, trailing: true, duration)).toBe("----b---------d|")
            s.expect(s.cold("-a-b|").throttle(trailing: true, duration)).toBe("-a--(b|)")
            s.expect(s.cold("-a-b-c--|").throttle(leading: false, trailing: false, duration)).toBe("--------|")
            s.expect(s.cold("-a-b#").throttle(duration)).toBe("-a--#")
        }
    }

    @Test("throttle(durationSelector) releases the source and the duration at unsubscription")
    func throttleSelectorUnsubscribe() {
        marbles { s in
            let source = s.hot("-a-b-----c--|")
            let duration = s.cold("-----x")
            s.expect(source.throttle { _ in duration }, unsubscribe: "^---!").toBe("-a--")
            s.expect(subscriptions: source.subscriptions).toBe("^---!")
            s.expect(subscriptions: duration.subscriptions).toBe("-^--!")
        }
    }

    @Test("window(timeSpan:count:) closes at the span or the count, whichever first, and opens the next with a fresh span")
    func windowTimeSpanCount() {
        marbles { s in
            let windows = s.cold("-a-b-c-d-e-f-g-|").window(timeSpan: .milliseconds(5), count: 2, scheduler: s)
            // x closes at its 2nd value (3), y too (7); z closes at its 2nd value (11) before its span
            // ends (12); w is ended by the source's completion.
            s.expect(windows).toBe(
                "x--y---z---w---|",
                values: ["x": s.cold("-a-(b|)"), "y": s.cold("--c-(d|)"), "z": s.cold("--e-(f|)"), "w": s.cold("--g-|")])
            s.expect(s.cold("-a--#").window(timeSpan: .milliseconds(5), count: 2, scheduler: s)).toBe(
                "x---#", values: ["x": s.cold("-a--#")])
        }
    }

    @Test("window(timeSpan:timeShift:) opens a window every shift: overlapping, or with gaps that drop values")
    func windowTimeShift() {
        marbles { s in
            let source = s.cold("-a-b-c-d-e-|")
            // Unsubscribed at 8 (before z's close at 8): z and w stay open.
            s.expect(source.window(timeSpan: .milliseconds(4), timeShift: .milliseconds(2), scheduler: s), unsubscribe: "^-------!")
                .toBe(
                    "x-y-z-w-",
                    values: ["x": s.cold("-a-b|"), "y": s.cold("-b-c|"), "z": s.cold("-c-d"), "w": s.cold("-d")])
            s.expect(source.window(timeSpan: .milliseconds(2), timeShift: .milliseconds(4), scheduler: s), unsubscribe: "^-------!")
                .toBe("x---y---", values: ["x": s.cold("-a|"), "y": s.cold("-c|")])
        }
    }

    @Test("min(by:) and max(by:) with a comparer keep the first of equals; a throwing comparer fails")
    func minMaxBy() {
        marbles { s in
            let words = s.cold("-a-b-c-d-|", values: ["a": "pear", "b": "fig", "c": "plum", "d": "kiwi"])
            s.expect(words.min { $0.count < $1.count }).toBe("---------(m|)", values: ["m": "fig"])
            s.expect(words.max { $0.count < $1.count }).toBe("---------(m|)", values: ["m": "pear"])
            s.expect(s.cold("---|").min(by: { (a: String, b: String) in a < b })).toBe("---|")
            s.expect(words.min { _, _ in throw TestError() }).toBe("---#", error: TestError())
            s.expect(s.cold("-a-#").max(by: <)).toBe("---#")
        }
    }

    @Test("single(where:): the one match at completion; two matches, none among values, or no values are errors")
    func singleWhere() {
        marbles { s in
            let isB = { (value: String) in value == "b" }
            s.expect(s.cold("-a-b-c-|").single(where: isB)).toBe("-------(b|)")
            s.expect(s.cold("-a-b-b-|").single(where: isB)).toBe("-----#", error: RxError.moreThanOneElement)
            s.expect(s.cold("-a-c-|").single(where: isB)).toBe("-----#", error: RxError.noMatchingElement)
            s.expect(s.cold("-----|").single(where: isB)).toBe("-----#", error: RxError.noElements)
            let source = s.cold("-b-b-c-|")
            s.expect(source.single(where: isB)).toBe("---#", error: RxError.moreThanOneElement)
            s.expect(subscriptions: source.subscriptions).toBe("^--!")
        }
    }

    @Test("first(where:default:), find(where:) and firstIndex(where:) complete at the first match, or give their fallback at completion")
    func findFamily() {
        marbles { s in
            let source = s.cold("-a-b-c-|", values: ["a": 1, "b": 4, "c": 6])
            s.expect(source.first(where: { $0 > 3 }, default: 0)).toBe("---(b|)", values: ["b": 4])
            s.expect(source.first(where: { $0 > 9 }, default: 0)).toBe("-------(z|)", values: ["z": 0])
            s.expect(source.find { $0 > 3 }).toBe("---(b|)", values: ["b": 4 as Int?])
            s.expect(source.find { $0 > 9 }).toBe("-------(n|)", values: ["n": nil as Int?])
            s.expect(source.firstIndex { $0 > 3 }).toBe("---(i|)", values: ["i": 1])
            s.expect(source.firstIndex { $0 > 9 }).toBe("-------(i|)", values: ["i": -1])
            s.expect(s.cold("-a-#", values: ["a": 1]).find { $0 > 3 }).toBe("---#")
            s.expect(source.firstIndex { _ in throw TestError() }).toBe("-#", error: TestError())
            s.expect(subscriptions: source.subscriptions).toBe(["^--!", "^------!", "^--!", "^------!", "^--!", "^------!", "^!"])
        }
    }

    @Test("share(resetOnComplete: false): a late subscriber gets the completion without a new subscription")
    func shareKeepsCompletion() {
        marbles { s in
            let source = s.cold("-a-|")
            let shared = source.share(resetOnComplete: false)
            s.expect(shared).toBe("-a-|")
            s.expect(shared, unsubscribe: "-----^-!").toBe("-----|")
            s.expect(subscriptions: source.subscriptions).toBe("^--!")
        }
    }

    @Test("share() with the default resets: a late subscriber after completion subscribes the source again")
    func shareResetsOnComplete() {
        marbles { s in
            let source = s.cold("-a-|")
            let shared = source.share(resetOnError: true, resetOnComplete: true, resetOnRefCountZero: true)
            s.expect(shared).toBe("-a-|")
            s.expect(shared, unsubscribe: "-----^----!").toBe("------a-|")
            s.expect(subscriptions: source.subscriptions).toBe(["^--!", "-----^--!"])
        }
    }

    @Test("share(resetOnError: false) replays the error; resetOnError: true resubscribes")
    func shareError() {
        marbles { s in
            let failing = s.cold("-a-#")
            let kept = failing.share(resetOnError: false)
            s.expect(kept).toBe("-a-#")
            s.expect(kept, unsubscribe: "-----^-!").toBe("-----#")
            let again = s.cold("-b-#")
            let reset = again.share()
            s.expect(reset).toBe("-b-#")
            s.expect(reset, unsubscribe: "-----^----!").toBe("------b-#")
            s.expect(subscriptions: failing.subscriptions).toBe("^--!")
            s.expect(subscriptions: again.subscriptions).toBe(["^--!", "-----^--!"])
        }
    }

    @Test(
        "share(resetOnRefCountZero: .when { timer }): a subscriber before the timer joins the running subscription, one after it starts over"
    )
    func shareResetOnRefCountZeroNotifier() {
        marbles { s in
            let source = s.cold("-a-b-c-d-e-f-g-h-|")
            let shared = source.share(resetOnRefCountZero: .when { Observable<Int>.timer(.milliseconds(2), scheduler: s) })
            s.expect(shared, unsubscribe: "^--!").toBe("-a-")
            // Arrives at 4, before the reset at 5: the same subscription, c at 5.
            s.expect(shared, unsubscribe: "----^---!").toBe("-----c-d")
            // Leaves at 8; the timer resets at 10; arrives at 12: a new subscription, which the
            // source keeps for the timer's two frames after the last subscriber leaves at 17.
            s.expect(shared, unsubscribe: "------------^----!").toBe("-------------a-b")
            s.expect(subscriptions: source.subscriptions).toBe(["^---------!", "------------^------!"])
        }
    }

    @Test(
        "share(resetOnError: .when { notifier }, resetOnRefCountZero: .never): before the notifier the error replays, after it the source starts over"
    )
    func shareResetOnErrorNotifier() {
        marbles { s in
            let source = s.cold("-a-#")
            let notifier = s.hot("------n")
            let shared = source.share(resetOnError: .when { _ in notifier }, resetOnRefCountZero: .never)
            s.expect(shared).toBe("-a-#")
            s.expect(shared, unsubscribe: "----^").toBe("----#")
            s.expect(shared, unsubscribe: "-------^").toBe("--------a-#")
            s.expect(subscriptions: source.subscriptions).toBe(["^--!", "-------^--!"])
            // Each error waits for the notifier; the second one still waits when the run ends.
            s.expect(subscriptions: notifier.subscriptions).toBe(["---^--!", "----------^"])
        }
    }

    @Test("share with a notifier that never emits keeps the reset pending, and the source's subscription open")
    func shareNotifierNeverEmits() {
        marbles { s in
            let source = s.hot("-a-b-c-d-")
            let shared = source.share(resetOnRefCountZero: .when { Observable<Int>.never() })
            s.expect(shared, unsubscribe: "^--!").toBe("-a-")
            s.expect(shared, unsubscribe: "-----^--!").toBe("-----c-d")
            s.expect(subscriptions: source.subscriptions).toBe("^")
        }
    }

    @Test("share(resetOnRefCountZero: false) stays subscribed when everyone leaves; true starts over")
    func shareRefCountZero() {
        marbles { s in
            let source = s.cold("-a-b-c-d-|")
            let kept = source.share(resetOnRefCountZero: false)
            s.expect(kept, unsubscribe: "^--!").toBe("-a-")
            s.expect(kept, unsubscribe: "-----^--!").toBe("-----c-d")
            let other = s.cold("-a-b-c-d-|")
            let reset = other.share()
            s.expect(reset, unsubscribe: "^--!").toBe("-a-")
            s.expect(reset, unsubscribe: "-----^--!").toBe("------a-")
            s.expect(subscriptions: other.subscriptions).toBe(["^--!", "-----^--!"])
        }
    }
}
