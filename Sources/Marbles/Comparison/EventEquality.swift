// The one definition of "the same event" that every comparison uses: the typed fast path of
// `toBe` (values of the element type), the general comparison (erased values, inner
// timelines, matchers) and `eventListsMatch`. They differ only in how two values compare.

extension Event {
    /// The same event: values compared with `equal`, errors as marble comparisons compare
    /// them (same type and description), completion with completion.
    @inlinable
    func matches(_ other: Event<Element>, _ equal: (Element, Element) -> Bool) -> Bool {
        // One switch at a time, not over the pair: a tuple of the two events would copy both
        // (retaining their values) for every comparison.
        switch self {
        case .next(let a):
            guard case .next(let b) = other else { return false }
            return equal(a, b)
        case .completed:
            guard case .completed = other else { return false }
            return true
        case .error(let a):
            guard case .error(let b) = other else { return false }
            return errorsMatch(a, b)
        }
    }
}

/// `==` for `T` when `T` is `Equatable` (found at run time, so that an unconstrained generic
/// expectation still compares with `==`); `nil` otherwise.
@inlinable
func equality<T>(of type: T.Type) -> ((T, T) -> Bool)? {
    guard let equatable = type as? any Equatable.Type else { return nil }
    return equalityOpened(equatable, as: type)
}

@usableFromInline
func equalityOpened<E: Equatable, T>(_: E.Type, as: T.Type) -> ((T, T) -> Bool)? {
    let equal: (E, E) -> Bool = (==)
    // `E` is `T` (opened from `T.self`): the bit cast is the identity, without the dynamic cast
    // of a function type that `as?` would pay on every `toBe`.
    return unsafeBitCast(equal, to: ((T, T) -> Bool).self)
}
