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

@Suite("Accumulating, indexing and timing values")
struct AccumulatingTests {
    @Test("min and max emit at completion; empty just completes; errors pass at once")
    func minMax() {
        marbles { s in
            let values = ["1": 1, "2": 2, "5": 5, "7": 7]
            s.expect(s.hot("--5--1--7--2--|", values: values).min()).toBe("--------------(1|)", values: values)
            s.expect(s.hot("--5--1--7--2--|", values: values).max()).toBe("--------------(7|)", values: values)
            s.expect(s.hot("-----|", values: values).max()).toBe("-----|", values: values)
            s.expect(s.hot("--5--#", values: values).min()).toBe("-----#", values: values)
            let e1 = s.hot("--5--1--|", values: values)
            s.expect(e1.min(), unsubscribe: "^---!").toBe("----", values: values)
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }

    @Test("scan(into:) emits each accumulation, mutating the state in place")
    func scanInto() {
        marbles { s in
            s.expect(s.hot("--a--b--c--|").scan(into: "") { $0 += $1 }).toBe("--x--y--z--|", values: ["x": "a", "y": "ab", "z": "abc"])
            s.expect(s.hot("--a--b--|").scan(into: "") { _, _ in throw TestError() }).toBe("--#", error: TestError())
            s.expect(s.hot("--a--#").scan(into: "") { $0 += $1 }).toBe("--a--#")
        }
    }

    @Test("enumerated counts from 0 for every subscription")
    func enumerated() {
        marbles { s in
            let e1 = s.cold("--a--b--|")
            let indexed = e1.enumerated().map { "\($0.index)\($0.element)" }
            s.expect(indexed).toBe("--x--y--|", values: ["x": "0a", "y": "1b"])
            s.expect(indexed.delaySubscription(.milliseconds(3), scheduler: s)).toBe("-----x--y--|", values: ["x": "0a", "y": "1b"])
            s.expect(s.hot("--a--#").enumerated().map { "\($0.index)" }).toBe("--0--#")
        }
    }

    @Test("retry() resubscribes after every error until the source completes")
    func retryForever() {
        marbles { s in
            var attempts = 0
            let flaky = Observable<String>.deferred {
                attempts += 1
                return attempts < 4 ? s.cold("-a#") : s.cold("-b|")
            }
            s.expect(flaky.retry()).toBe("-a-a-a-b|")
            let e1 = s.cold("--a--#")
            s.expect(e1.retry(), unsubscribe: "^-------!").toBe("--a----a")
            s.expect(subscriptions: e1.subscriptions).toBe(["^----!", "-----^--!"])
        }
    }

    @Test("timestamp and timeInterval read the scheduler's clock")
    func timestampAndInterval() {
        marbles { s in
            let e1 = s.hot("--a---b-c|")
            s.expect(e1.timestamp(scheduler: s).map { "\(Int($0.time / s.frame))" }).toBe(
                "--x---y-z|", values: ["x": "2", "y": "6", "z": "8"])
            s.expect(e1.timeInterval(scheduler: s).map { "\(Int($0.interval / s.frame))" })
                .toBe("--x---y-z|", values: ["x": "2", "y": "4", "z": "2"])
        }
    }
}

@Suite("distinct, repeat, single, finalize")
struct DistinctRepeatSingleTests {
    @Test("distinct drops values seen before; a key selector and a flush notifier (RxJS distinct)")
    func distinct() {
        marbles { s in
            s.expect(s.hot("--a--b--a--c--b--|").distinct()).toBe("--a--b-----c-----|")
            s.expect(s.hot("--a--A--b--B--|").distinct(by: { $0.lowercased() })).toBe("--a-----b-----|")
            let flush = s.hot("---------x")
            s.expect(s.hot("--a--b--a--a--b--|").distinct(by: { $0 }, flushes: flush)).toBe("--a--b-----a--b--|")
            s.expect(s.hot("--a--a--#").distinct()).toBe("--a-----#")
            s.expect(s.hot("--a--b--|").distinct(by: { _ -> String in throw TestError() })).toBe("--#", error: TestError())
            let e1 = s.hot("--a--b--c--|")
            s.expect(e1.distinct(), unsubscribe: "^----!").toBe("--a--")
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
        }
    }

    @Test("repeat subscribes count times in a row; an error ends it")
    func repeatCount() {
        marbles { s in
            let e1 = s.cold("--a-|")
            s.expect(e1.repeat(3)).toBe("--a---a---a-|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^---!", "----^---!", "--------^---!"])
            s.expect(s.cold("--a-#").repeat(3)).toBe("--a-#")
            s.expect(s.cold("--a-|").repeat(0)).toBe("|")
            // Constant memory: no array of Int.max passes is built.
            s.expect(s.cold("--a|").repeat(Int.max), unsubscribe: "^-----!").toBe("--a--a")
        }
    }

    @Test("single: the only value at completion; a second value or none is an error")
    func single() {
        marbles { s in
            s.expect(s.hot("--a-----|").single()).toBe("--------(a|)")
            let e1 = s.hot("--a--b--|")
            s.expect(e1.single()).toBe("-----#", error: RxError.moreThanOneElement)
            s.expect(subscriptions: e1.subscriptions).toBe("^----!")
            s.expect(s.hot("-----|").single()).toBe("-----#", error: RxError.noElements)
            s.expect(s.hot("--#").single()).toBe("--#")
        }
    }

    @Test("finalize runs once after completion, error or unsubscription")
    func finalize() {
        for (diagram, unsubscribe) in [("--a--|", nil), ("--a--#", nil), ("--a-----", "^--!")] as [(String, String?)] {
            var log: [String] = []
            marbles { s in
                let source = s.hot(diagram).do(
                    onNext: { log.append($0) }, onError: { _ in log.append("error") }, onCompleted: { log.append("done") })
                _ = s.expect(source.finalize { log.append("finally") }, unsubscribe: unsubscribe)
            }
            #expect(log.last == "finally" && log.filter { $0 == "finally" }.count == 1, "\(diagram): \(log)")
        }
    }
}

@Suite("take(for:) and skip(for:)")
struct TakeSkipForTests {
    @Test("take(for:) completes when the time is up and unsubscribes the source")
    func takeFor() {
        marbles { s in
            let e1 = s.hot("--a--b--c--d--|")
            s.expect(e1.take(for: .milliseconds(7), scheduler: s)).toBe("--a--b-|")
            s.expect(subscriptions: e1.subscriptions).toBe("^------!")
            s.expect(s.hot("--a--#").take(for: .milliseconds(8), scheduler: s)).toBe("--a--#")
            s.expect(s.hot("--a--|").take(for: .milliseconds(8), scheduler: s)).toBe("--a--|")
        }
    }

    @Test("skip(for:) drops values until the time is up")
    func skipFor() {
        marbles { s in
            let e1 = s.hot("--a--b--c--d--|")
            s.expect(e1.skip(for: .milliseconds(7), scheduler: s)).toBe("--------c--d--|")
            s.expect(s.hot("--a--#").skip(for: .milliseconds(8), scheduler: s)).toBe("-----#")
            s.expect(e1.skip(for: .milliseconds(7), scheduler: s), unsubscribe: "^---------!").toBe("--------c-")
        }
    }
}

@Suite("forkJoin, AsyncSubject, buffer(count:skip:)")
struct ForkJoinAsyncSubjectBufferTests {
    @Test("forkJoin emits the last values when the last source completes (RxJS 7 forkJoin)")
    func forkJoin() {
        marbles { s in
            let a = s.hot("--a--b---|")
            let b = s.hot("---x--y--------|")
            s.expect(Observable.forkJoin([a, b]).map { $0.joined() }).toBe("---------------(r|)", values: ["r": "by"])
            s.expect(subscriptions: a.subscriptions).toBe("^--------!")
            s.expect(subscriptions: b.subscriptions).toBe("^--------------!")
            s.expect(Observable.forkJoin([s.hot("--a--|"), s.hot("----|")]).map { $0.joined() }).toBe("----|")
            s.expect(Observable.forkJoin([s.hot("--a--|"), s.hot("---#")]).map { $0.joined() }).toBe("---#")
            s.expect(Observable.forkJoin([Observable<String>]()).map { $0.joined() }).toBe("|")
        }
    }

    @Test("AsyncSubject gives the last value and completion to every subscriber, late ones too")
    func asyncSubject() {
        marbles { s in
            let subject = AsyncSubject<String>()
            let source = s.hot("--a--b--|")
            _ = s.record(source.do(onNext: subject.onNext, onCompleted: subject.onCompleted))
            s.expect(subject).toBe("--------(b|)")
            s.expect(subject.asObservable().delaySubscription(.milliseconds(10), scheduler: s)).toBe("----------(b|)")
            let failing = AsyncSubject<String>()
            _ = s.record(s.hot("--a--#").do(onNext: failing.onNext, onError: failing.onError))
            s.expect(failing).toBe("-----#")
        }
    }

    @Test("buffer(count:skip:) overlaps or skips, and flushes open buffers at completion (RxJS bufferCount)")
    func bufferCountSkip() {
        marbles { s in
            let e1 = s.hot("--a--b--c--d--e--|")
            s.expect(e1.buffer(count: 3, skip: 1).map { $0.joined() })
                .toBe("--------x--y--z--(uv|)", values: ["x": "abc", "y": "bcd", "z": "cde", "u": "de", "v": "e"])
            s.expect(e1.buffer(count: 2, skip: 3).map { $0.joined() }).toBe("-----x--------y--|", values: ["x": "ab", "y": "de"])
            s.expect(s.hot("--a--#").buffer(count: 2, skip: 1).map { $0.joined() }).toBe("-----#")
        }
    }
}

@Suite("sample(every:)")
struct SampleTimeTests {
    @Test("sample(every:) emits the latest new value at each period (RxJS sampleTime)")
    func sampleTime() {
        marbles { s in
            let e1 = s.hot("-a-b---c-d-|")
            s.expect(e1.sample(every: .milliseconds(4), scheduler: s)).toBe("----b---c--|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^----------!", "^------!"])
            s.expect(s.hot("-a-b-#").sample(every: .milliseconds(4), scheduler: s)).toBe("----b#")
            s.expect(e1.sample(every: .milliseconds(4), scheduler: s), unsubscribe: "^------!").toBe("----b--")
        }
    }
}

@Suite("generate")
struct GenerateTests {
    @Test("generate runs the loop at subscription; errors end it; take stops it")
    func generate() {
        marbles { s in
            let numbers = ["0": 0, "1": 1, "2": 2, "3": 3]
            let counting = Observable.generate(initialState: 0, condition: { $0 < 4 }, iterate: { $0 + 1 })
            s.expect(counting).toBe("(0123|)", values: numbers)
            s.expect(Observable.generate(initialState: 0, condition: { _ in true }, iterate: { $0 + 1 }).take(2)).toBe(
                "(01|)", values: numbers)
            s.expect(Observable.generate(initialState: 0, condition: { $0 < 4 }, iterate: { _ in throw TestError() }))
                .toBe("(0#)", values: numbers, error: TestError())
            s.expect(counting.delaySubscription(.milliseconds(3), scheduler: s)).toBe("---(0123|)", values: numbers)
        }
    }

    @Test("a condition that always holds ends at the test scheduler's step limit, with one failure")
    func endlessGenerate() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(stepLimit: 1_000, reporter: reporter)
        scheduler.run {
            _ = scheduler.expect(Observable.generate(initialState: 0, condition: { _ in true }, iterate: { $0 + 1 }))
        }
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains("generate looped synchronously 1000 times") == true)
    }

    @Test("an endless generate recorded outside a flush stops at the step limit; the next flush reports it")
    func endlessGenerateRecorded() {
        let reporter = MarbleFailure.Collector()
        let scheduler = TestScheduler(stepLimit: 1_000, reporter: reporter)
        let recording = scheduler.record(Observable.generate(initialState: 0, condition: { _ in true }, iterate: { $0 + 1 }))
        scheduler.flush()
        #expect(recording.events.count == 1_000)
        #expect(reporter.failures.count == 1)
        #expect(reporter.failures.first?.message.contains("generate looped synchronously 1000 times") == true)
    }
}

@Suite("exhaustAll, combineLatestAll, zipAll")
struct FlattenAllTests {
    @Test("exhaustAll ignores inners that arrive while one runs")
    func exhaustAll() {
        marbles { s in
            let x = s.cold("--a--b|")
            let y = s.cold("--c|")
            let z = s.cold("--d|")
            let outer = s.hot("-x--y-----z---|", values: ["x": x, "y": y, "z": z])
            s.expect(outer.exhaustAll()).toBe("---a--b-----d-|")
            s.expect(subscriptions: y.subscriptions).toBe([String]())
            s.expect(subscriptions: z.subscriptions).toBe("----------^--!")
        }
    }

    @Test("combineLatestAll and zipAll subscribe when the outer completes")
    func combineAndZipAll() {
        marbles { s in
            let x = s.cold("-a--b|")
            let y = s.cold("--1-2--|")
            let outer = s.hot("-x-y-|", values: ["x": x, "y": y])
            s.expect(outer.combineLatestAll().map { $0.joined() }).toBe("-------p-[qr]--|", values: ["p": "a1", "q": "b1", "r": "b2"])
            s.expect(outer.zipAll().map { $0.joined() }).toBe("-------p-q|", values: ["p": "a1", "q": "b2"])
            s.expect(s.hot("---|", values: [String: TestScheduler.ColdObservable<String>]()).zipAll().map { $0.joined() }).toBe("---|")
            s.expect(s.hot("-x-#", values: ["x": x]).combineLatestAll().map { $0.joined() }).toBe("---#")
        }
    }
}

@Suite("audit")
struct AuditTests {
    @Test("audit emits the latest value when each wait ends (RxJS 7 auditTime)")
    func audit() {
        marbles { s in
            let e1 = s.hot("-a-x-y----b---x-cy-z----|")
            s.expect(e1.audit(.milliseconds(5), scheduler: s)).toBe("------y--------x-----z--|")
            s.expect(s.hot("-a-b|").audit(.milliseconds(5), scheduler: s)).toBe("------(b|)")
            s.expect(s.hot("-a-b#").audit(.milliseconds(5), scheduler: s)).toBe("----#")
            let e2 = s.hot("-a-b--c--|")
            s.expect(e2.audit(.milliseconds(3), scheduler: s), unsubscribe: "^----!").toBe("----b")
            s.expect(subscriptions: e2.subscriptions).toBe("^----!")
        }
    }
}

@Suite("repeat(), debug, reduce(mapResult:)")
struct RepeatDebugReduceTests {
    @Test("repeat() resubscribes at every completion until unsubscribed; an error ends it")
    func repeatForever() {
        marbles { s in
            let e1 = s.cold("--a|")
            s.expect(e1.repeat(), unsubscribe: "^--------!").toBe("--a--a--a")
            s.expect(subscriptions: e1.subscriptions).toBe(["^--!", "---^--!", "------^--!"])
            s.expect(s.cold("--a#").repeat()).toBe("--a#")
        }
    }

    @Test("debug prints subscription, events and disposal, and passes everything on")
    func debug() {
        var lines: [String] = []
        marbles { s in
            s.expect(s.hot("--a--|").debug("src") { lines.append($0) }).toBe("--a--|")
        }
        #expect(lines == ["src -> subscribed", "src -> next(a)", "src -> completed", "src -> disposed"])
    }

    @Test("reduce with mapResult maps the final state")
    func reduceMapResult() {
        marbles { s in
            s.expect(s.hot("--a--b--|").reduce("", accumulator: { $0 + $1 }, mapResult: { $0.uppercased() })).toBe(
                "--------(x|)", values: ["x": "AB"])
            s.expect(s.hot("--a--#").reduce("", accumulator: { $0 + $1 }, mapResult: { $0 })).toBe("-----#")
        }
    }
}

@Suite("buffer(boundary), sequenceEqual")
struct BufferBoundarySequenceEqualTests {
    @Test("buffer(boundary) emits what was collected at each boundary, the rest at completion (RxJS 7 buffer)")
    func bufferBoundary() {
        marbles { s in
            let e1 = s.hot("-a-b-c-d-e-f-|")
            let boundary = s.hot("----x---x-x--------x")
            s.expect(e1.buffer(boundary).map { $0.joined() }).toBe("----x---y-z--(w|)", values: ["x": "ab", "y": "cd", "z": "e", "w": "f"])
            s.expect(s.hot("-a--b#").buffer(s.hot("---x")).map { $0.joined() }).toBe("---x-#", values: ["x": "a"])
            s.expect(s.hot("-a---").buffer(s.hot("--#")).map { $0.joined() }).toBe("--#", values: [String: String]())
            let e2 = s.hot("-a--b-c-|")
            s.expect(e2.buffer(s.hot("---x")).map { $0.joined() }, unsubscribe: "^----!").toBe("---x-", values: ["x": "a"])
            s.expect(subscriptions: e2.subscriptions).toBe("^----!")
        }
    }

    @Test("sequenceEqual: false at the first difference, true when both end alike (RxJS sequenceEqual)")
    func sequenceEqual() {
        marbles { s in
            let f = ["f": false]
            let t = ["t": true]
            s.expect(s.hot("-a--b--c-|").sequenceEqual(s.hot("--a-b-c---|"))).toBe("----------(t|)", values: t)
            s.expect(s.hot("-a--b--c-|").sequenceEqual(s.hot("--a-x-c---|"))).toBe("----(f|)", values: f)
            s.expect(s.hot("-a--b-|").sequenceEqual(s.hot("--a-b-c---|"))).toBe("------(f|)", values: f)
            s.expect(s.hot("-a--b--c-|").sequenceEqual(s.hot("--a-b-|"))).toBe("-------(f|)", values: f)
            s.expect(s.hot("-a--#").sequenceEqual(s.hot("--a-b-|"))).toBe("----#", values: f)
            let e1 = s.hot("-a--b--c-|")
            s.expect(e1.sequenceEqual(s.hot("-a--b--c-|")), unsubscribe: "^---!").toBe("----", values: t)
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }
}

@Suite("share(replay:scope:)")
struct ShareScopeTests {
    @Test("forever keeps the subject: a late subscriber gets the replay and the end, the source is not resubscribed")
    func forever() {
        marbles { s in
            let e1 = s.cold("-a-b|")
            let shared = e1.share(replay: 1, scope: .forever)
            s.expect(shared).toBe("-a-b|")
            s.expect(shared.delaySubscription(.milliseconds(6), scheduler: s)).toBe("------(b|)")
            s.expect(subscriptions: e1.subscriptions).toBe("^---!")
        }
    }

    @Test("whileConnected starts afresh after the source ended")
    func whileConnected() {
        marbles { s in
            let e1 = s.cold("-a-b|")
            let shared = e1.share(replay: 1, scope: .whileConnected)
            s.expect(shared).toBe("-a-b|")
            s.expect(shared.delaySubscription(.milliseconds(6), scheduler: s)).toBe("-------a-b|")
            s.expect(subscriptions: e1.subscriptions).toBe(["^---!", "------^---!"])
        }
    }
}
