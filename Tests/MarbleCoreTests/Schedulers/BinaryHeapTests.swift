import MarbleCore
import TestSupport
import Testing

@Suite("Binary heap")
struct BinaryHeapTests {
    /// Equal keys are told apart by the order they went in, as the scheduler's heap does.
    struct Entry: Comparable {
        var key: Int
        var sequence: Int
        static func < (a: Entry, b: Entry) -> Bool { (a.key, a.sequence) < (b.key, b.sequence) }
    }

    @Test("a seeded sweep of inserts and pops matches a sorted reference, ties in insertion order", arguments: 0..<20)
    func matchesSortedReference(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        var heap = BinaryHeap<Entry>()
        var reference: [Entry] = []
        var sequence = 0
        for _ in 0..<2_000 {
            if Int.random(in: 0..<3, using: &random) < 2 {
                // Few distinct keys, so most comparisons are ties.
                let entry = Entry(key: Int.random(in: 0..<8, using: &random), sequence: sequence)
                sequence += 1
                heap.insert(entry)
                reference.append(entry)
                reference.sort()
            } else {
                #expect(heap.popMin() == (reference.isEmpty ? nil : reference.removeFirst()))
            }
            #expect(heap.count == reference.count)
            #expect(heap.min == reference.first)
        }
        while let entry = heap.popMin() { #expect(entry == reference.removeFirst()) }
        #expect(reference.isEmpty)
    }

    @Test("heapify from an array gives the same order as inserting one by one")
    func heapify() {
        var random = SeededRandom(seed: 99)
        let values = (0..<500).map { _ in Int.random(in: -50..<50, using: &random) }
        var built = BinaryHeap(values)
        var popped: [Int] = []
        while let v = built.popMin() { popped.append(v) }
        #expect(popped == values.sorted())
    }

    @Test("empty heap: no min, pop gives nil; removeAll empties")
    func empty() {
        var heap = BinaryHeap<Int>()
        #expect(heap.isEmpty && heap.min == nil && heap.popMin() == nil)
        heap.insert(3)
        heap.removeAll()
        #expect(heap.isEmpty)
    }
}
