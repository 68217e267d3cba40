import HeapModule
import MarbleCore
import Marbles
import MarblesCombine

// MARK: Operator chains

func chainBenchmarks() {
    let n = opaque(options.quick ? 1_000_000 : 10_000_000)
    let expected = chainResult(n)
    compare(
        "range → map → filter → scan → subscribe, \(n) events", unit: .nanoseconds(per: n),
        [
            Contender("hand-chained closures") {
                var acc = 0
                let stages = makeStages { v in acc &+= v }
                for i in 0..<n { stages(i) }
                precondition(acc == expected)
            },
            Contender("stages calling the user's closures") {
                var last = 0
                let stages = makeStagesCallingUserClosures(
                    transform: opaque { $0 &* 3 }, predicate: opaque { $0 & 1 == 0 }, accumulate: opaque { $0 &+ $1 },
                    sink: { last = $0 })
                for i in 0..<n { stages(i) }
                precondition(last == expected)
            },
            Contender("plain loop") {
                var acc = 0
                for i in 0..<n {
                    let m = opaque(i) &* 3
                    if m & 1 == 0 { acc &+= m }
                }
                precondition(acc == expected)
            },
            Contender("MarbleCore chain") {
                var last = 0
                Observable<Int>.range(start: 0, count: n).map { $0 &* 3 }.filter { $0 & 1 == 0 }.scan(0) { $0 &+ $1 }
                    .subscribe(onNext: { last = $0 })
                precondition(last == expected)
            },
        ])
    let mapped = (n - 1 + 1) * 3 - 2
    compare(
        "range → map × 3, \(n) events", unit: .nanoseconds(per: n),
        [
            Contender("one stage, three closures fused") {
                var last = 0
                Observable<Int>.range(start: 0, count: n).map(composed({ $0 &+ 1 }, { $0 &* 3 }, { $0 &- 2 }))
                    .subscribe(onNext: { last = $0 })
                precondition(last == mapped)
            },
            Contender("three map stages") {
                var last = 0
                Observable<Int>.range(start: 0, count: n).map { $0 &+ 1 }.map { $0 &* 3 }.map { $0 &- 2 }
                    .subscribe(onNext: { last = $0 })
                precondition(last == mapped)
            },
        ])
}

func subjectBenchmarks() {
    let n = opaque(options.quick ? 100_000 : 1_000_000)
    let expected = chainResult(n)
    compare(
        "subject driven in a loop → map → filter → scan, \(n) events", unit: .nanoseconds(per: n),
        [
            Contender("hand-chained closures") {
                var acc = 0
                let stages = makeStages { v in acc &+= v }
                for i in 0..<n { stages(i) }
                precondition(acc == expected)
            },
            Contender("OpenCombine PassthroughSubject chain") {
                var last = 0
                let input = PassthroughSubject<Int, Never>()
                let cancellable = input.map { $0 &* 3 }.filter { $0 & 1 == 0 }.scan(0) { $0 &+ $1 }.sink { last = $0 }
                for i in 0..<n { input.send(i) }
                cancellable.cancel()
                precondition(last == expected)
            },
            Contender("MarbleCore PublishSubject chain") {
                var last = 0
                let input = PublishSubject<Int>()
                let subscription = input.map { $0 &* 3 }.filter { $0 & 1 == 0 }.scan(0) { $0 &+ $1 }.subscribe(onNext: { last = $0 })
                for i in 0..<n { input.onNext(i) }
                subscription.dispose()
                precondition(last == expected)
            },
        ])
}

// MARK: Virtual-time schedulers against heaps

/// The baseline: a (time, sequence) heap of closures that moves one entry per sift level.
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

/// An entry for swift-collections' `Heap`, ordered as the schedulers order actions.
struct HeapEntry: Comparable {
    let due: Int64
    let seq: UInt64
    let action: () -> Void
    static func < (a: HeapEntry, b: HeapEntry) -> Bool { a.due < b.due || (a.due == b.due && a.seq < b.seq) }
    static func == (a: HeapEntry, b: HeapEntry) -> Bool { a.due == b.due && a.seq == b.seq }
}

func schedulerBenchmarks() {
    for n in options.sizes ?? (options.quick ? [1_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000]) {
        var random = SplitMix(state: 42)
        let dues = (0..<n).map { _ in Int64(random.next() % 1_000_000) }
        // Fewer rounds at 10⁶ (a second each); more at 10³, where a run is microseconds.
        let reps = n >= 1_000_000 ? max(3, options.reps / 2) : options.reps * (n <= 1_000 ? 20 : 1)
        compare(
            "schedule + run \(n) actions at random virtual times", unit: .nanoseconds(per: n, "ns/action"), reps: reps,
            [
                Contender("bare binary heap") {
                    var heap = BareHeap()
                    var count = 0
                    var seq: UInt64 = 0
                    for d in dues {
                        seq += 1
                        heap.push(.init(due: d, seq: seq, action: { count &+= 1 }))
                    }
                    while let e = heap.pop() { e.action() }
                    precondition(count == n)
                },
                Contender("swift-collections Heap") {
                    var heap = Heap<HeapEntry>()
                    var count = 0
                    var seq: UInt64 = 0
                    for d in dues {
                        seq += 1
                        heap.insert(HeapEntry(due: d, seq: seq, action: { count &+= 1 }))
                    }
                    while let e = heap.popMin() { e.action() }
                    precondition(count == n)
                },
                Contender("VirtualTimeScheduler") {
                    let scheduler = VirtualTimeScheduler()
                    var count = 0
                    for d in dues { scheduler.schedule(after: .nanoseconds(d)) { count &+= 1 } }
                    try! scheduler.run()
                    precondition(count == n)
                },
                Contender("TestScheduler") {
                    let scheduler = TestScheduler(reporter: MarbleFailure.Collector())
                    var count = 0
                    for d in dues { scheduler.schedule(after: .nanoseconds(d)) { count &+= 1 } }
                    scheduler.flush()
                    precondition(count == n)
                },
            ])
    }
}
