import Atomics
import Foundation

/// Runs renders off the server's tasks (they are CPU work that would hold a cooperative
/// thread), at most `width` at a time, and stops waiting for one after a time limit.
///
/// A render cannot be interrupted half way (Cairo has no cancellation), but every render ends:
/// the spec runner stops at 20,000 virtual steps and 2,000 frames. The limit keeps the server
/// answering meanwhile, and `capacity` refuses work rather than queueing it without bound.
final class RenderQueue: Sendable {
    private let queue = DispatchQueue(label: "marbleplay.render", attributes: .concurrent)
    private let slots: DispatchSemaphore
    private let admitted = ManagedAtomic<Int>(0)
    let capacity: Int
    let limit: Duration

    init(width: Int, capacity: Int, limit: Duration) {
        slots = DispatchSemaphore(value: width)
        self.capacity = capacity
        self.limit = limit
    }

    /// `work`'s reply, or 503 when `capacity` renders are already admitted or the limit passes.
    func run(_ work: @escaping @Sendable () -> PlaygroundReply) async -> PlaygroundReply {
        if admitted.wrappingIncrementThenLoad(by: 1, ordering: .relaxed) > capacity {
            admitted.wrappingDecrement(by: 1, ordering: .relaxed)
            return .error(503, "the playground is busy: \(capacity) renders are already waiting; try again")
        }
        let limit = self.limit
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        return await withCheckedContinuation { continuation in
            let reply = ReplyOnce(continuation)
            queue.async { [self] in
                slots.wait()
                let result = work()
                slots.signal()
                admitted.wrappingDecrement(by: 1, ordering: .relaxed)
                reply.resume(result)
            }
            queue.asyncAfter(deadline: .now() + seconds) {
                reply.resume(
                    .error(
                        503, "rendering took longer than \(String(format: "%g", seconds)) s; shorten the diagram or its time progressions"))
            }
        }
    }
}

/// Resumes a continuation with the first reply only.
private final class ReplyOnce: Sendable {
    private let resumed = ManagedAtomic<Bool>(false)
    private let continuation: CheckedContinuation<PlaygroundReply, Never>

    init(_ continuation: CheckedContinuation<PlaygroundReply, Never>) { self.continuation = continuation }

    func resume(_ reply: PlaygroundReply) {
        if !resumed.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: reply) }
    }
}
