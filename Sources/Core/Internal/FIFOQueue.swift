/// A first-in, first-out queue on an array with a moving head: O(1) amortized `append` and
/// `popFirst`, compacted once the consumed prefix is over half the storage. (MarbleCore has no
/// dependencies, so no `Deque`.)
@usableFromInline
package struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable package init() {}

    @inlinable package var isEmpty: Bool { head == storage.count }
    /// How many elements wait.
    @inlinable package var count: Int { storage.count - head }
    @inlinable package var first: Element? { isEmpty ? nil : storage[head] }

    @inlinable package mutating func append(_ element: Element) { storage.append(element) }

    @inlinable package mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 32 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
