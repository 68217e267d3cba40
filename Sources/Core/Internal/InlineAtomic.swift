public import Atomics

// Atomics without a floor: swift-atomics' operations, on storage the object itself holds.
//
// `Synchronization.Atomic` (what this module used before) needs macOS 15 / iOS 18. swift-atomics'
// `ManagedAtomic` would cost an allocation per atomic, and these live in every observer and
// subscription. So an object that needs one keeps the storage as its first stored property, and
// addresses it the way `ManagedAtomic` addresses its own: at the start of the object's stored
// properties (`_getUnsafePointerToStoredProperties`). The storage must stay the first stored
// property of a root class; each such init asserts it with `isFirstStoredProperty` (debug builds),
// and ``inlineStorageLayouts()`` checks every such class, for a test run in release builds
// (`make test-release-layout`, in CI).

/// `object`'s first stored property as a pointer to `T`: state an object keeps inline and hands
/// out by address (an atomic here, `Lock`'s mutex, the test executor's atomics and the virtual
/// clocks' C struct in Marbles). It must be the first stored property of a root class, and is
/// then used only through this pointer; ``isFirstStoredProperty(of:_:)`` asserts the layout.
@inlinable @inline(__always)
package func firstStoredProperty<T>(of object: AnyObject, as _: T.Type) -> UnsafeMutablePointer<T> {
    _getUnsafePointerToStoredProperties(object).assumingMemoryBound(to: T.self)
}

/// Whether `storage` (an object's inline state, passed `&self.storage`) is where
/// ``firstStoredProperty(of:as:)`` looks: the object's first stored property.
@inlinable
package func isFirstStoredProperty<Storage>(of object: AnyObject, _ storage: UnsafeMutablePointer<Storage>) -> Bool {
    UnsafeMutableRawPointer(storage) == _getUnsafePointerToStoredProperties(object)
}

// measured: inline state (an allocation an object fewer, as the inline mutex of 604f9b1: empty run
// 18% faster, 10-event test 7%, A/B, release); every observer, gate and anonymous disposable has one.
/// The atomic stored as the first stored property of `object`.
@inlinable @inline(__always)
func inlineAtomic<Value: AtomicValue>(_ object: AnyObject, of _: Value.Type) -> UnsafeAtomic<Value> {
    UnsafeAtomic(at: firstStoredProperty(of: object, as: Value.AtomicRepresentation.self))
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

/// Each class that keeps state inline, and whether its state is where it is read from: for a
/// test built in release (the inits assert the same in debug builds only).
package func inlineStorageLayouts() -> [(type: String, holds: Bool)] {
    let observer = Observer<Int> { _ in }
    let values = ObservableValues<Int>.Buffer()
    return [
        ("Lock", Lock().layoutHolds), ("Gate", Gate(observer).layoutHolds), ("Observer", observer.layoutHolds),
        ("AnonymousDisposable", AnonymousDisposable {}.layoutHolds),
        ("SingleAssignmentDisposable", SingleAssignmentDisposable().layoutHolds), ("ObservableValues.Buffer", values.layoutHolds),
    ]
}
