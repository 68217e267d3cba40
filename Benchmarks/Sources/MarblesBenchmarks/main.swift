import CombineSchedulers
import HeapModule
import MarbleCore
import MarbleRender
import Marbles
import MarblesCombine

// A plain timing harness: each benchmark runs its baseline in the same process, takes the
// median of several runs, and prints the ratio. Release builds only.

func median(_ runs: Int, _ body: () -> Duration) -> Duration {
    var times = (0..<runs).map { _ in body() }
    times.sort()
    return times[runs / 2]
}

func measure(_ body: () -> Void) -> Duration {
    ContinuousClock().measure(body)
}

func ns(_ d: Duration, per count: Int) -> Double {
    let (s, atto) = d.components
    return (Double(s) * 1e9 + Double(atto) / 1e9) / Double(count)
}

@_optimize(none) func blackHole<T>(_ value: T) {}

/// Hides a value from the optimizer, so loops over it are not folded away.
@inline(never) func opaque<T>(_ value: T) -> T { value }

/// Three transforms composed into one closure out of the optimizer's sight: what fusing
/// `map(f).map(g).map(h)` into one stage would run per value.
@inline(never) func composed(_ f: @escaping (Int) -> Int, _ g: @escaping (Int) -> Int, _ h: @escaping (Int) -> Int) -> (Int) -> Int {
    { h(g(f($0))) }
}

/// Closures built out of the optimizer's sight, as a chain of stages would be.
@inline(never) func makeStages(_ sink: @escaping (Int) -> Void) -> (Int) -> Void {
    let scan: (Int) -> Void = { v in sink(v) }
    let filter: (Int) -> Void = { v in if v & 1 == 0 { scan(v) } }
    return { v in filter(v &* 3) }
}

func report(_ name: String, _ value: Double, _ unit: String, baseline: Double? = nil, baselineName: String = "") {
    var line = "\(name.padding(toLength: 58, withPad: " ", startingAt: 0)) \(String(format: "%10.2f", value)) \(unit)"
    if let baseline { line += String(format: "   %6.2f× %@", value / baseline, baselineName) }
    print(line)
}

struct SplitMix {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

let arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
let runs = quick ? 3 : 7
/// `--only chain|scheduler|parser|marble-test` runs one section (for profiling).
let only: String? = arguments.firstIndex(of: "--only").flatMap { i in arguments.dropFirst(i - arguments.startIndex + 1).first }
func section(_ name: String) -> Bool { only == nil || only == name }

// MARK: Operator chain: range → map → filter → scan → subscribe

if section("chain") {
    let n = opaque(quick ? 1_000_000 : 10_000_000)
    print("== range → map → filter → scan → subscribe, \(n) events (ns/event)")
    let loop = median(runs) {
        measure {
            var acc = 0
            for i in 0..<n {
                let m = opaque(i) &* 3
                if m & 1 == 0 { acc &+= m }
            }
            blackHole(acc)
        }
    }
    let closures = median(runs) {
        measure {
            var acc = 0
            var last = 0
            let map = makeStages { v in
                acc &+= v
                last = acc
            }
            for i in 0..<n { map(i) }
            blackHole(last)
        }
    }
    let chain = median(runs) {
        measure {
            var last = 0
            Observable<Int>.range(start: 0, count: n)
                .map { $0 &* 3 }
                .filter { $0 & 1 == 0 }
                .scan(0) { $0 &+ $1 }
                .subscribe(onNext: { last = $0 })
            blackHole(last)
        }
    }
    let loopNs = ns(loop, per: n)
    let closuresNs = ns(closures, per: n)
    report("plain loop (baseline)", loopNs, "ns/event")
    report("hand-chained closures", closuresNs, "ns/event", baseline: loopNs, baselineName: "loop")
    report("MarbleCore chain", ns(chain, per: n), "ns/event", baseline: closuresNs, baselineName: "closures")

    let threeMaps = median(runs) {
        measure {
            var last = 0
            Observable<Int>.range(start: 0, count: n).map { $0 &+ 1 }.map { $0 &* 3 }.map { $0 &- 2 }
                .subscribe(onNext: { last = $0 })
            blackHole(last)
        }
    }
    let oneMap = median(runs) {
        measure {
            var last = 0
            Observable<Int>.range(start: 0, count: n).map { ($0 &+ 1) &* 3 &- 2 }
                .subscribe(onNext: { last = $0 })
            blackHole(last)
        }
    }
    let fusedMap = median(runs) {
        measure {
            var last = 0
            let f = composed({ $0 &+ 1 }, { $0 &* 3 }, { $0 &- 2 })
            Observable<Int>.range(start: 0, count: n).map(f)
                .subscribe(onNext: { last = $0 })
            blackHole(last)
        }
    }
    let oneMapNs = ns(oneMap, per: n)
    let fusedNs = ns(fusedMap, per: n)
    report("range → map (one hand-written closure)", oneMapNs, "ns/event")
    report("range → map (three closures fused into one stage)", fusedNs, "ns/event", baseline: oneMapNs, baselineName: "one closure")
    report("range → map → map → map (three stages)", ns(threeMaps, per: n), "ns/event", baseline: fusedNs, baselineName: "fused")
}

// MARK: VirtualTimeScheduler vs a bare binary heap

/// The baseline: the same (time, sequence) heap of closures, with nothing else.
struct BareHeap {
    struct Entry {
        let due: Int64
        let seq: UInt64
        let action: () -> Void
    }
    var storage: [Entry] = []
    @inline(__always) static func less(_ a: Entry, _ b: Entry) -> Bool { a.due < b.due || (a.due == b.due && a.seq < b.seq) }
    mutating func push(_ e: Entry) {
        storage.append(e)
        var c = storage.count - 1
        while c > 0 {
            let p = (c - 1) / 2
            if !Self.less(storage[c], storage[p]) { break }
            storage.swapAt(c, p)
            c = p
        }
    }
    mutating func pop() -> Entry? {
        guard !storage.isEmpty else { return nil }
        if storage.count == 1 { return storage.removeLast() }
        let top = storage[0]
        storage[0] = storage.removeLast()
        var p = 0
        let n = storage.count
        while true {
            let l = 2 * p + 1
            if l >= n { break }
            var m = l
            if l + 1 < n && Self.less(storage[l + 1], storage[l]) { m = l + 1 }
            if !Self.less(storage[m], storage[p]) { break }
            storage.swapAt(m, p)
            p = m
        }
        return top
    }
}

/// An entry for swift-collections' `Heap`, ordered as the scheduler orders actions.
struct HeapEntry: Comparable {
    let due: Int64
    let seq: UInt64
    let action: () -> Void
    static func < (a: HeapEntry, b: HeapEntry) -> Bool { a.due < b.due || (a.due == b.due && a.seq < b.seq) }
    static func == (a: HeapEntry, b: HeapEntry) -> Bool { a.due == b.due && a.seq == b.seq }
}

for n in [10_000, 100_000, 1_000_000] where section("scheduler") {
    print("== schedule + run \(n) actions at random virtual times (ns/action)")
    var rng = SplitMix(state: 42)
    let dues = (0..<n).map { _ in Int64(rng.next() % 1_000_000) }
    let bare = median(runs) {
        measure {
            var heap = BareHeap()
            var count = 0
            var seq: UInt64 = 0
            for d in dues {
                seq += 1
                heap.push(.init(due: d, seq: seq, action: { count &+= 1 }))
            }
            while let e = heap.pop() { e.action() }
            blackHole(count)
        }
    }
    let collections = median(runs) {
        measure {
            var heap = Heap<HeapEntry>()
            var count = 0
            var seq: UInt64 = 0
            for d in dues {
                seq += 1
                heap.insert(HeapEntry(due: d, seq: seq, action: { count &+= 1 }))
            }
            while let e = heap.popMin() { e.action() }
            blackHole(count)
        }
    }
    let virtual = median(runs) {
        measure {
            let scheduler = VirtualTimeScheduler()
            var count = 0
            for d in dues { scheduler.schedule(after: .nanoseconds(d)) { count &+= 1 } }
            try? scheduler.run()
            blackHole(count)
        }
    }
    let bareNs = ns(bare, per: n)
    report("bare binary heap (baseline)", bareNs, "ns/action")
    report("swift-collections Heap", ns(collections, per: n), "ns/action", baseline: bareNs, baselineName: "bare heap")
    report("VirtualTimeScheduler", ns(virtual, per: n), "ns/action", baseline: bareNs, baselineName: "bare heap")
}

// MARK: Marble parser throughput

if section("parser") {
    print("== marble parser, 1 MB diagram (MB/s)")
    var diagram = ""
    let unit = "--a-b-(cd)-e 10ms f-"
    while diagram.utf8.count < 1_000_000 { diagram += unit }
    diagram += "|"
    let bytes = Double(diagram.utf8.count)
    let parser = MarbleParser()
    let parse = median(runs) {
        measure { blackHole(try? parser.parse(diagram, kind: .cold)) }
    }
    let scan = median(runs) {
        measure {
            var dashes = 0
            for b in diagram.utf8 where b == 0x2D { dashes &+= 1 }
            blackHole(dashes)
        }
    }
    let mbps = { (d: Duration) in bytes / 1e6 / (ns(d, per: 1) / 1e9) }
    report("byte scan counting '-' (baseline)", mbps(scan), "MB/s")
    report("MarbleParser.parse", mbps(parse), "MB/s", baseline: mbps(scan), baselineName: "scan")
}

// MARK: A 1 000-event marble test, end to end

if section("marble-test") {
    print("== cold test of 1 000 events → map → run → compare (ms/test)")
    let input = String(repeating: "a-", count: 1_000) + "|"
    let expected = String(repeating: "b-", count: 1_000) + "|"
    let runOnce = median(runs) {
        measure {
            for _ in 0..<20 {
                let reporter = CollectingReporter()
                let scheduler = TestScheduler(reporter: reporter)
                scheduler.run {
                    let source = scheduler.cold(input, values: ["a": 1])
                    scheduler.expect(source.map { $0 + 1 }).toBe(expected, values: ["b": 2])
                }
                precondition(reporter.failures.isEmpty)
            }
        }
    }
    let parseOnly = median(runs) {
        measure {
            for _ in 0..<20 {
                blackHole(try? MarbleParser().parse(input, kind: .cold, values: ["a": 1]))
                blackHole(try? MarbleParser().parse(expected, kind: .expected, values: ["b": 2]))
            }
        }
    }
    report("parse both diagrams only (baseline)", ns(parseOnly, per: 20) / 1e6, "ms/test")
    report(
        "TestScheduler.run (parse, run, compare)", ns(runOnce, per: 20) / 1e6, "ms/test",
        baseline: ns(parseOnly, per: 20) / 1e6, baselineName: "parse only")
}

// MARK: Rendering one diagram

if section("render") {
    print("== render the gallery's flatMap diagram (ms/diagram)")
    let spec = try! DiagramSpec.parse(
        """
        input: -x--y--z------------|
        inner x: -1---2|
        inner y: --3---4|
        inner z: -5|
        operator: flatMap(maxConcurrent: 2)
        """)
    let model = try! DiagramRunner.run(spec)
    let measurer = CairoTextMeasurer()
    let list = DiagramLayout(style: spec.style, measurer: measurer).layout(model)
    let renderer = CairoRenderer()
    _ = try! renderer.render(list, format: .png, theme: .light)  // fontconfig warm-up
    let count = quick ? 20 : 100
    func perDiagram(_ body: () -> Void) -> Double { ns(median(runs) { measure { for _ in 0..<count { body() } } }, per: count) / 1e6 }
    let runAndLayout = perDiagram { blackHole(DiagramLayout(style: spec.style, measurer: measurer).layout(try! DiagramRunner.run(spec))) }
    let svg = perDiagram { blackHole(try! renderer.render(list, format: .svg, theme: .light)) }
    let svgAuto = perDiagram { blackHole(try! renderer.render(list, format: .svg, theme: .light, autoTheme: true)) }
    let pdf = perDiagram { blackHole(try! renderer.render(list, format: .pdf, theme: .light)) }
    let png = perDiagram { blackHole(try! renderer.render(list, format: .png, theme: .light, scale: 2)) }
    report("run operator + layout (baseline)", runAndLayout, "ms")
    report("SVG", svg, "ms", baseline: runAndLayout, baselineName: "run+layout")
    report("SVG, auto theme", svgAuto, "ms", baseline: runAndLayout, baselineName: "run+layout")
    report("PDF", pdf, "ms", baseline: runAndLayout, baselineName: "run+layout")
    report("PNG 2×", png, "ms", baseline: runAndLayout, baselineName: "run+layout")
}

// MARK: The async driver: cost per virtual-time step, fixed cost of one async test

// MARK: A subject driven in a loop → map → filter → scan

if section("subject") {
    let n = opaque(quick ? 100_000 : 1_000_000)
    print("== subject driven in a loop → map → filter → scan, \(n) events (ns/event)")
    let closures = median(runs) {
        measure {
            var acc = 0
            let stages = makeStages { v in acc &+= v }
            for i in 0..<n { stages(i) }
            blackHole(acc)
        }
    }
    let subject = median(runs) {
        measure {
            var last = 0
            let input = PublishSubject<Int>()
            let subscription = input.map { $0 &* 3 }.filter { $0 & 1 == 0 }.scan(0) { $0 &+ $1 }.subscribe(onNext: { last = $0 })
            for i in 0..<n { input.onNext(i) }
            subscription.dispose()
            precondition(n < 2 || last != 0)
            blackHole(last)
        }
    }
    let passthrough = median(runs) {
        measure {
            var last = 0
            let input = PassthroughSubject<Int, Never>()
            let cancellable = input.map { $0 &* 3 }.filter { $0 & 1 == 0 }.scan(0) { $0 &+ $1 }.sink { last = $0 }
            for i in 0..<n { input.send(i) }
            cancellable.cancel()
            blackHole(last)
        }
    }
    let closuresNs = ns(closures, per: n)
    report("hand-chained closures (baseline)", closuresNs, "ns/event")
    report("OpenCombine PassthroughSubject chain", ns(passthrough, per: n), "ns/event", baseline: closuresNs, baselineName: "closures")
    report("MarbleCore PublishSubject chain", ns(subject, per: n), "ns/event", baseline: closuresNs, baselineName: "closures")
}

// MARK: Combine schedulers: ours against combine-schedulers' TestScheduler

if section("combine") {
    print("== Combine scheduler: schedule N actions at random virtual times, then run them all (ns/action)")
    typealias Instant = CombineTestScheduler.VirtualInstant
    func times(_ n: Int) -> [Duration] {
        var random = SplitMix(state: 42)
        return (0..<n).map { _ in .microseconds(Int(random.next() % 1_000_000)) }
    }
    func ours(_ n: Int) -> Double {
        let due = times(n)
        return ns(
            median(runs) {
                measure {
                    let scheduler = Marbles.TestScheduler(reporter: CollectingReporter())
                    let combine = scheduler.combine
                    var ran = 0
                    for t in due { combine.schedule(after: Instant(t)) { ran += 1 } }
                    scheduler.flush()
                    precondition(ran == n)
                }
            }, per: n)
    }
    func peer(_ n: Int) -> Double {
        let due = times(n)
        return ns(
            median(quick ? 1 : 3) {
                measure {
                    let scheduler = CombineSchedulers.TestScheduler<Instant, Never>(now: Instant(.zero))
                    var ran = 0
                    for t in due { scheduler.schedule(after: Instant(t)) { ran += 1 } }
                    scheduler.run()
                    precondition(ran == n)
                }
            }, per: n)
    }
    for n in quick ? [1_000] : [1_000, 10_000] {
        let mine = ours(n)
        report("Marbles scheduler.combine, N = \(n) (baseline)", mine, "ns/action")
        report("combine-schedulers TestScheduler, N = \(n)", peer(n), "ns/action", baseline: mine, baselineName: "Marbles")
    }
    if !quick {
        report("Marbles scheduler.combine, N = 100000", ours(100_000), "ns/action")
        print("   (combine-schedulers at N = 100000 is left out: it re-sorts its array on every step, quadratic, half an hour here)")
    }
}

// Top-level code runs on MainActor, and closures formed there would hop to the main queue,
// outside the test scheduler: the async benchmarks run in a nonisolated function.
if section("async") { asyncDriverBenchmarks() }

nonisolated func asyncDriverBenchmarks() {
    let steps = 1_000
    print("== async driver: \(steps) sleeps of 1 frame each (ns/step), and one short test (µs/test)")
    func sleeps(on clock: TestClock, _ emit: (Int) -> Void) async throws {
        for i in 0..<steps {
            try await clock.sleep(for: .milliseconds(1))
            emit(i)
        }
    }
    // Baseline: the synchronous driver stepping the same number of virtual instants.
    let synchronous = median(runs) {
        measure {
            let scheduler = TestScheduler(reporter: CollectingReporter())
            scheduler.run { blackHole(scheduler.record(Observable<Int>.interval(.milliseconds(1), scheduler: scheduler).take(steps))) }
        }
    }
    let structured = median(runs) {
        measure {
            let scheduler = TestScheduler(reporter: CollectingReporter())
            let clock = scheduler.clock
            let expectation = scheduler.run { scheduler.expect(emitting: Int.self) { emit in try await sleeps(on: clock) { emit($0) } } }
            precondition(expectation.recorded.count == steps + 1, "\(expectation.recorded.count)")
        }
    }
    let unstructured = median(runs) {
        measure {
            let scheduler = TestScheduler(reporter: CollectingReporter())
            let subject = PublishSubject<Int>()
            let clock = scheduler.clock
            let recording = scheduler.run {
                let recording = scheduler.record(subject)
                Task { try await sleeps(on: clock) { subject.onNext($0) } }
                return recording
            }
            precondition(recording.events.count == steps, "\(recording.events.count)")
        }
    }
    let base = ns(synchronous, per: steps)
    report("synchronous driver, interval (baseline)", base, "ns/step")
    report("async, structured task (expect(emitting:))", ns(structured, per: steps), "ns/step", baseline: base, baselineName: "sync")
    report("async, Task { } through the enqueue hook", ns(unstructured, per: steps), "ns/step", baseline: base, baselineName: "sync")

    let tests = quick ? 200 : 1_000
    let syncTest = median(runs) {
        measure {
            for _ in 0..<tests {
                let scheduler = TestScheduler(reporter: CollectingReporter())
                scheduler.run { scheduler.expect(scheduler.cold("-a|").map { $0 }).toBe("-a|") }
            }
        }
    }
    let asyncTest = median(runs) {
        measure {
            for _ in 0..<tests {
                let scheduler = TestScheduler(reporter: CollectingReporter())
                scheduler.run { scheduler.expect(scheduler.cold("-a|").values.map { $0 }).toBe("-a|") }
            }
        }
    }
    report("one observable marble test (baseline)", ns(syncTest, per: tests) / 1e3, "µs/test")
    report(
        "one async marble test (values → map)", ns(asyncTest, per: tests) / 1e3, "µs/test",
        baseline: ns(syncTest, per: tests) / 1e3, baselineName: "observable")
}
