public import Atomics

// Atomics without a floor: swift-atomics' operations, on storage the object itself holds.
//
// `Synchronization.Atomic` (what this module used before) needs macOS 15 / iOS 18. swift-atomics'
// `ManagedAtomic` would cost an allocation per atomic, and these live in every observer and
// subscription. So an object that needs one keeps the storage as its first stored property, and
// addresses it the way `ManagedAtomic` addresses its own: at the start of the object's stored
// properties (`_getUnsafePointerToStoredProperties`). The storage must stay the first stored
// property of a root class; `checkInlineAtomic` asserts it in debug builds.

/// The atomic stored as the first stored property of `object`.
@inlinable @inline(__always)
func inlineAtomic<Value: AtomicValue>(_ object: AnyObject, of _: Value.Type) -> UnsafeAtomic<Value> {
    UnsafeAtomic(at: _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: Value.AtomicRepresentation.self))
}

/// Whether `storage` (an object's atomic storage, passed `&self.storage`) is where
/// ``inlineAtomic(_:of:)`` looks: the object's first stored property.
@inlinable
func checkInlineAtomic<Storage>(_ object: AnyObject, _ storage: UnsafeMutablePointer<Storage>) -> Bool {
    UnsafeMutableRawPointer(storage) == _getUnsafePointerToStoredProperties(object)
}

extension UnsafeAtomic where Value == Int {
    /// Adds `amount` (acquiring and releasing); returns the values before and after.
    @inlinable @inline(__always) @discardableResult
    func add(_ amount: Int) -> (oldValue: Int, newValue: Int) {
        let old = loadThenWrappingIncrement(by: amount, ordering: .acquiringAndReleasing)
        return (old, old &+ amount)
    }

    /// Subtracts `amount` (acquiring and releasing); returns the values before and after.
    @inlinable @inline(__always) @discardableResult
    func subtract(_ amount: Int) -> (oldValue: Int, newValue: Int) {
        let old = loadThenWrappingDecrement(by: amount, ordering: .acquiringAndReleasing)
        return (old, old &- amount)
    }
}
