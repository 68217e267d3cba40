#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A per-thread step budget for virtual-time runs. A virtual-time driver installs a budget
/// around its run loop; operators that loop synchronously without going through a scheduler
/// (`retry` of a source that fails at once, `repeat` of one that completes at once) spend one
/// step per iteration, and stop when the budget is gone, so runaway work ends within the
/// driver's step limit instead of spinning inside one action. With no budget installed (real
/// schedulers, production code) `spend` always succeeds and costs one thread-local read.
@usableFromInline
package enum RunawayGuard {
    /// Steps allowed and spent on one thread's run. A value on the stack of the driver that
    /// installs it (the thread-local points at it): a run's budget costs no allocation.
    package struct Budget {
        package let limit: Int
        package var used = 0
        /// Set by the operator that ran out, naming the loop.
        package var loopDescription: String?
        package init(limit: Int) { self.limit = limit }
        package var exhausted: Bool { used > limit }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `budget` installed on this thread (restoring the previous one after);
    /// `body` spends from it through the pointer it is given, operators through ``spend(_:)``.
    /// Only this thread touches the budget while `body` runs.
    package static func withBudget<T>(_ budget: inout Budget, _ body: (UnsafeMutablePointer<Budget>) throws -> T) rethrows -> T {
        try withUnsafeMutablePointer(to: &budget) { pointer in
            let previous = install(pointer)
            defer { restore(previous) }
            return try body(pointer)
        }
    }

    /// Installs `budget` on this thread and returns the budget it replaces, for ``restore(_:)``:
    /// ``withBudget(_:_:)`` for a caller in another module, where that generic call would not be
    /// specialized (the drive loop of every run).
    package static func install(_ budget: UnsafeMutablePointer<Budget>) -> UnsafeMutableRawPointer? {
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, budget)
        return previous
    }

    /// Puts back the budget ``install(_:)`` replaced.
    package static func restore(_ previous: UnsafeMutableRawPointer?) { pthread_setspecific(key, previous) }

    /// Whether a budget is installed on this thread.
    package static var isInstalled: Bool { pthread_getspecific(key) != nil }

    /// Spends one step of this thread's budget for the loop named `loop`.
    /// - Returns: `false` when the budget is exhausted: the caller must stop looping.
    @usableFromInline
    package static func spend(_ loop: @autoclosure () -> String) -> Bool {
        guard let raw = pthread_getspecific(key) else { return true }
        let budget = raw.assumingMemoryBound(to: Budget.self)
        budget.pointee.used += 1
        if budget.pointee.exhausted {
            if budget.pointee.loopDescription == nil {
                budget.pointee.loopDescription =
                    "\(loop()) looped synchronously \(budget.pointee.limit) times inside one step of the test scheduler"
            }
            return false
        }
        return true
    }
}
