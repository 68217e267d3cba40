/// Runs items one at a time, without recursion, on whichever thread is already running one.
///
/// `run(item)` on an idle trampoline runs `item` at once on the caller's thread, then every
/// item queued meanwhile, in order; a `run` while another call is draining (re-entrantly on
/// the same thread, or from another thread) only queues. Operators that resubscribe from
/// inside a subscription's own callback (`retry`, `concat`, `flatMap(maxConcurrent:)` moving
/// to the next waiting inner) use it so that synchronous sources neither recurse nor race.
@usableFromInline
final class Trampoline<Item>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline var queue: [Item] = []
    @usableFromInline var head = 0
    @usableFromInline var draining = false
    @usableFromInline let body: (Item) -> Void

    @inlinable init(_ body: @escaping (Item) -> Void) { self.body = body }

    @inlinable func run(_ item: Item) {
        lock.lock()
        queue.append(item)
        if draining {
            lock.unlock()
            return
        }
        draining = true
        while head < queue.count {
            let next = queue[head]
            head += 1
            lock.unlock()
            body(next)
            lock.lock()
        }
        queue.removeAll(keepingCapacity: true)
        head = 0
        draining = false
        lock.unlock()
    }
}
