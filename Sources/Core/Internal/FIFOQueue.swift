/// A first-in, first-out queue on an array with a moving head: O(1) amortized `append` and
/// `popFirst`, compacted once the consumed prefix is over half the storage. (MarbleCore has no
/// dependencies, so no `Deque`.)
package struct FIFOQueue<Element> {
    private var storage: [Element] = []
    private var head = 0

    package init() {}

    package var isEmpty: Bool { head == storage.count }
    package var first: Element? { isEmpty ? nil : storage[head] }

    package mutating func append(_ element: Element) { storage.append(element) }

    package mutating func popFirst() -> Element? {
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
