/// A first-in, first-out queue on an array with a moving head: O(1) amortized `append` and
/// `popFirst`, compacted once the consumed prefix is over half the storage. (`Deque` would add
/// swift-collections to what every dependent fetches.) Slots hold optionals so that `popFirst`
/// moves an element out instead of copying it and leaving the copy behind until compaction.
@usableFromInline
package struct FIFOQueue<Element> {
    @usableFromInline var storage: [Element?] = []
    @usableFromInline var head = 0

    @inlinable package init() {}

    @inlinable package var isEmpty: Bool { head == storage.count }
    /// How many elements wait.
    @inlinable package var count: Int { storage.count - head }
    @inlinable package var first: Element? { isEmpty ? nil : storage[head] }

    @inlinable package mutating func append(_ element: Element) { storage.append(element) }

    @inlinable package mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head].take()
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

    /// The first element, moved out, when it satisfies `isReady` (read in place).
    @inlinable package mutating func popFirst(where isReady: (Element) -> Bool) -> Element? {
        guard !isEmpty, storage.withUnsafeBufferPointer({ isReady($0[head].unsafelyUnwrapped) }) else { return nil }
        return popFirst()
    }
}
