#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small non-recursive mutex on `pthread_mutex_t`.
///
/// `Synchronization.Mutex` would do, but ThreadSanitizer on Linux cannot see its futex and
/// reports false races; pthread mutexes are visible to it. The mutex lives in the object itself
/// (its first stored property, addressed as InlineAtomic.swift addresses atomics), not in an
/// allocation of its own: every operator's gate has a lock.
@usableFromInline
package final class Lock: @unchecked Sendable {
    // First stored property; touched only through `mutex`.
    // measured: the mutex inline (an allocation a lock fewer): empty run 18% faster, 10-event
    // test 7%, with that commit's other fixed-cost changes (604f9b1, A/B, release).
    private var storage = pthread_mutex_t()
    private var mutex: UnsafeMutablePointer<pthread_mutex_t> {
        firstStoredProperty(of: self, as: pthread_mutex_t.self)
    }

    /// Whether the mutex is where ``firstStoredProperty(of:as:)`` looks.
    var layoutHolds: Bool { isFirstStoredProperty(of: self, &storage) }

    @usableFromInline
    package init() {
        assert(isFirstStoredProperty(of: self, &storage))
        pthread_mutex_init(mutex, nil)
    }

    deinit { pthread_mutex_destroy(mutex) }

    @usableFromInline @inline(__always) package func lock() { pthread_mutex_lock(mutex) }
    @usableFromInline @inline(__always) package func unlock() { pthread_mutex_unlock(mutex) }

    @inlinable
    package func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A mutex kept in its owner's object (as its first stored property, ``firstStoredProperty(of:as:)``,
/// or at a known place after it): what a ``Lock`` does, without an object of its own. The owner
/// stores a `Storage`, makes this from it, calls `initialize()` in its init and `destroy()` in
/// its deinit. Usable from inlinable code (the storage does not name the C type).
@usableFromInline
package struct InlineMutex {
    /// Room for a `pthread_mutex_t` on every platform (40 bytes on Linux, 64 on Darwin).
    @usableFromInline
    package struct Storage {
        @usableFromInline var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        @inlinable package init() {}
    }

    @usableFromInline let mutex: UnsafeMutableRawPointer

    /// The mutex stored first in `owner`.
    @inlinable @inline(__always)
    package init(in owner: AnyObject) { self.init(at: firstStoredProperty(of: owner, as: Storage.self)) }

    /// The mutex stored at `storage` (in an object whose first stored property is other state).
    @inlinable @inline(__always)
    package init(at storage: UnsafeMutablePointer<Storage>) { mutex = UnsafeMutableRawPointer(storage) }

    @usableFromInline package func initialize() {
        assert(MemoryLayout<pthread_mutex_t>.size <= MemoryLayout<Storage>.size)
        assert(MemoryLayout<pthread_mutex_t>.alignment <= MemoryLayout<Storage>.alignment)
        pthread_mutex_init(mutex.assumingMemoryBound(to: pthread_mutex_t.self), nil)
    }
    @usableFromInline package func destroy() { pthread_mutex_destroy(mutex.assumingMemoryBound(to: pthread_mutex_t.self)) }
    @usableFromInline @inline(__always) package func lock() { pthread_mutex_lock(mutex.assumingMemoryBound(to: pthread_mutex_t.self)) }
    @usableFromInline @inline(__always) package func unlock() {
        pthread_mutex_unlock(mutex.assumingMemoryBound(to: pthread_mutex_t.self))
    }
}

/// Lets a value that the surrounding code protects by other means cross an isolation boundary.
///
/// Used where the engine hands a user's (non-`Sendable`) closure to another thread and itself
/// serializes every access to it.
@usableFromInline
package struct UncheckedSendable<Value>: @unchecked Sendable {
    @usableFromInline package var value: Value
    @inlinable package init(_ value: Value) { self.value = value }
}

/// A value behind its own lock, for state that escaping closures on several threads share.
@usableFromInline
package final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = Lock()
    @usableFromInline var value: Value

    @inlinable package init(_ value: Value) { self.value = value }

    /// Runs `body` on the value under the lock.
    @inlinable
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        try lock.withLock { try body(&value) }
    }
}
