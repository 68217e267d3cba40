import Marbles
import Testing

/// A scheduler with a collecting reporter, so tests can read what would be reported.
private func collecting() -> (TestScheduler, MarbleFailure.Collector) {
    let reporter = MarbleFailure.Collector()
    return (TestScheduler(reporter: reporter), reporter)
}

@Suite("TestScheduler")
struct TestSchedulerTests {
    @Test("unsubscribing a cold observable cancels what it has not sent yet, its messages in time order or not")
    func coldUnsubscribeCancelsRest() {
        for messages in [
            [
                Recorded(time: .milliseconds(1), value: Event<Int>.next(1)), Recorded(time: .milliseconds(3), value: .next(3)),
                Recorded(time: .milliseconds(5), value: .next(5)),
            ],
            [
                Recorded(time: .milliseconds(5), value: Event<Int>.next(5)), Recorded(time: .milliseconds(1), value: .next(1)),
                Recorded(time: .milliseconds(3), value: .next(3)),
            ],
        ] {
            let (s, reporter) = collecting()
            s.run {
                let source = s.cold(messages: messages)
                s.expect(source, unsubscribe: "^---!").toBe("-a-b", values: ["a": 1, "b": 3])
            }
            #expect(reporter.failures.isEmpty, "\(reporter.failures)")
            // The message at frame 5 was cancelled: time stopped at the unsubscription.
            #expect(s.now == .milliseconds(4))
        }
    }

    @Test("a hot observable emits its messages at their times whether they are given in time order or not, before-zero ones first")
    func hotMessagesInAnyOrder() {
        let ordered = [
            Recorded(time: .milliseconds(-2), value: Event<Int>.next(0)), Recorded(time: .milliseconds(1), value: .next(1)),
            Recorded(time: .milliseconds(3), value: .next(3)), Recorded(time: .milliseconds(3), value: .next(4)),
            Recorded(time: .milliseconds(5), value: .completed),
        ]
        let shuffled = [ordered[4], ordered[2], ordered[0], ordered[3], ordered[1]]
        for messages in [ordered, shuffled] {
            let (s, reporter) = collecting()
            s.run {
                let source = s.hot(messages: messages)
                s.expect(source).toBe("-a-[bc]-|", values: ["a": 1, "b": 3, "c": 4])
            }
            // Same-time messages keep their order in the array (3 before 4 in both).
            #expect(reporter.failures.isEmpty, "\(reporter.failures)")
        }
    }

    @Test("a matching expectation reports nothing")
    func passes() {
        let (s, reporter) = collecting()
        s.run {
            let e1 = s.hot("--a--^--b--c--|", values: ["a": 1, "b": 2, "c": 3])
            s.expect(e1.map { $0 * 10 }).toBe("---b--c--|", values: ["b": 20, "c": 30])
            s.expect(subscriptions: e1.subscriptions).toBe("^--------!")
        }
        #expect(reporter.failures.isEmpty)
    }

    @Test("a mismatch is reported at the toBe call site with aligned diagrams, a caret and each mismatch")
    func mismatchMessage() {
        let (s, reporter) = collecting()
        var line = 0
        s.run {
            let e1 = s.cold("--a--b--|")
            line = #line + 1
            s.expect(e1.filter { $0 != "b" }).toBe("--a--b--|")
        }
        #expect(reporter.failures.count == 1)
        let failure = reporter.failures[0]
        #expect(failure.location.line == line)
        #expect(
            failure.message == """
                marble diagrams differ at frame 5
                            2  5  8
                expected: --a--b--|
                actual:   --a-----|
                               ^
                  frame 5: expected next(b), got nothing
                """)
    }

    @Test("mismatch lines name values by their keys and show errors and completions")
    func mismatchWords() {
        let (s, reporter) = collecting()
        s.run {
            let e1 = s.cold("--a--#", values: ["a": 1])
            s.expect(e1.map { $0 * 2 }).toBe("--x--|", values: ["x": 3])
        }
        let message = reporter.failures.first?.message ?? ""
        #expect(message.contains("frame 2: expected next(x = 3), got next(2)"))
        #expect(message.contains("frame 5: expected completed, got error(MarbleError: error)"))
    }

    @Test("a subscription mismatch lists both logs, with a frame ruler and a caret")
    func subscriptionMismatch() {
        let (s, reporter) = collecting()
        s.run {
            let e1 = s.cold("--a--|")
            s.expect(e1.take(1)).toBe("--(a|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
        #expect(reporter.failures.count == 1)
        #expect(
            reporter.failures[0].message == """
                subscriptions differ at frame 2
                          0 2  5
                expected: ^----!
                actual:   ^-!
                            ^
                  subscription 1: expected subscribed at frame 0, unsubscribed at frame 5, got subscribed at frame 0, unsubscribed at frame 2
                """)
    }

    @Test("a subscription expected but never made is drawn against (none), the caret at its '^'")
    func subscriptionNeverMade() {
        let (s, reporter) = collecting()
        s.run {
            let e1 = s.cold("--a--|")
            s.expect(subscriptions: e1).toBe("--^--!")
        }
        #expect(
            reporter.failures.first?.message == """
                subscriptions differ at frame 2
                            2  5
                expected: --^--!
                actual:   (none)
                            ^
                  subscription 1: expected subscribed at frame 2, unsubscribed at frame 5, got none
                """)
    }

    @Test("a malformed diagram is reported where it was written, with its caret")
    func malformedDiagram() {
        let (s, reporter) = collecting()
        s.run {
            s.expect(s.cold("--(a")).toBe("--a")
        }
        #expect(reporter.failures.count >= 1)
        #expect(reporter.failures[0].message.contains("unclosed group"))
        #expect(reporter.failures[0].message.contains("  --(a\n    ^"))
    }

    @Test("an expectation's subscription at frame N sees a hot value at frame N; its unsubscription at N hides it")
    func subscriptionOrdering() {
        let (s, reporter) = collecting()
        s.run {
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1, unsubscribe: "--^--!").toBe("--a--")
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures)")
    }

    @Test("hot observables emit in creation order within a frame; negative frames run first")
    func hotOrdering() {
        let (s, reporter) = collecting()
        s.run {
            let replay = ReplaySubject<String>(bufferSize: 10)
            let early = s.hot("a-^-b|")
            early.subscribe(replay)
            let e1 = s.hot("---x|")
            let e2 = s.hot("---y|")
            s.expect(Observable.merge(e1, e2)).toBe("---(xy)")
            s.expect(replay).toBe("--b|")
        }
        #expect(reporter.failures.count == 2)
        // The merge completes at 4; the replay subject replays nothing: 'a' ran before anyone subscribed.
        #expect(reporter.failures[0].message.contains("got completed"))
    }

    @Test("flush keeps expectations without toBe; frames keep counting across flushes")
    func flushKeepsUnfinished() {
        let (s, reporter) = collecting()
        let e1 = s.cold("--a|")
        let pending = s.expect(e1)
        s.flush()
        #expect(s.now == .milliseconds(3))
        pending.toBe("--a|")
        s.flush()
        #expect(reporter.failures.isEmpty)
        let later = s.cold("-b|")
        s.expect(later).toBe("-b|")
        s.expect(subscriptions: later.subscriptions).toBe("^-!")
        s.flush()
        #expect(reporter.failures.isEmpty, "\(reporter.failures)")
        #expect(s.now == .milliseconds(5))
    }

    @Test("time() measures a diagram for operator arguments")
    func time() {
        let (s, _) = collecting()
        #expect(s.time("---|") == .milliseconds(3))
    }

    @Test("record() gives the raw recording; advance(by:) moves time step by step")
    func recordAndAdvance() {
        let (s, reporter) = collecting()
        let e1 = s.cold("-a-b-|")
        let recording = s.record(e1)
        s.advance(by: .milliseconds(2))
        #expect(recording.events == [Recorded(time: .milliseconds(1), value: .next("a"))])
        s.advance(to: .milliseconds(10))
        #expect(recording.events.map(\.value) == [.next("a"), .next("b"), .completed])
        #expect(reporter.failures.isEmpty)
    }

    @Test("TestScheduler(frame:) scales diagrams")
    func frameSize() {
        let reporter = MarbleFailure.Collector()
        let s = TestScheduler(frame: .milliseconds(10), reporter: reporter)
        s.run {
            let e1 = s.cold("-a|")
            s.expect(e1.delay(.milliseconds(20), scheduler: s)).toBe("---(a|)")
        }
        #expect(reporter.failures.isEmpty, "\(reporter.failures)")
    }

    @Test("errors compare by type and description")
    func errorComparison() {
        struct Boom: Error, CustomStringConvertible { var description: String }
        let (s, reporter) = collecting()
        s.run {
            s.expect(s.cold("-#", error: Boom(description: "x"))).toBe("-#", error: Boom(description: "x"))
            s.expect(s.cold("-#", error: Boom(description: "x"))).toBe("-#", error: Boom(description: "y"))
            s.expect(s.cold("-#", error: Boom(description: "x"))).toBe("-#", error: MarbleError("x"))
        }
        #expect(reporter.failures.count == 2)
    }

    @Test("inner observables that differ are reported with their timelines")
    func innerMismatch() {
        let (s, reporter) = collecting()
        s.run {
            let outer = s.hot("-a|").map { _ in s.cold("--x|") }
            s.expect(outer).toBe("-i|", values: ["i": s.cold("-x|")])
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures[0].message.contains("expected next(i = -x|), got next(--x|)"))
    }
}

/// Found by the engine laws (a subscription window over a hot source): `toBeLike` watched the
/// other observable for the whole run, so `expect(x, unsubscribe: "^!")` failed against the same x.
@Suite("toBeLike over a subscription window")
struct ToBeLikeWindowTests {
    @Test("the other observable is watched over the expectation's subscription window")
    func sameWindow() {
        let scheduler = TestScheduler()
        scheduler.run {
            let source = scheduler.hot("^-a-b|")
            scheduler.expect(source.map { $0 }, unsubscribe: "^--!").toBeLike(source)
            scheduler.expect(source.map { $0 }, unsubscribe: "--^-!").toBeLike(source.filter { _ in true })
        }
    }
}
