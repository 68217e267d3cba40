// The one definition of "the same event" that every comparison uses: the typed fast path of
// `toBe` (values of the element type), the general comparison (erased values, inner
// timelines, matchers) and `eventListsMatch`; and the one rule for "the same value",
// `ValueEquality`, that both paths take their value comparison from.

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

/// The one rule for whether two plain values match: the test's `areEqual` when it gave one;
/// else `==` of their type when it is `Equatable` (the typed path gets it statically from
/// ``equality(of:)``, the general path by opening the value's dynamic type: the same operator);
/// else the same type and the same description. Matchers and inner timelines are decided
/// before a value reaches it (``RecordedValue/matches(_:)``). A property test checks the
/// typed, general and fast general paths agree.
@usableFromInline enum ValueEquality {
    /// The typed path's comparison of `T`s: `areEqual`, else `==`; `nil` when `T` is not
    /// `Equatable` and the test gave none (the general path decides then).
    @inlinable static func typed<T>(_ type: T.Type, areEqual: ((T, T) -> Bool)?) -> ((T, T) -> Bool)? {
        areEqual ?? equality(of: type)
    }

    /// Two erased values (the type's facts found for this pair alone: no allocation).
    static func plain(_ a: Any, _ b: Any, areEqual: ((Any, Any) -> Bool)?) -> Bool {
        if let areEqual { return areEqual(a, b) }
        if let equatable = a as? any Equatable { return equatable.isEqual(to: b) }
        return Swift.type(of: b) == Swift.type(of: a) && String(describing: a) == String(describing: b)
    }

    /// How the values of one type compare, looked up once for a run of values of that type.
    struct Facts {
        let type: Any.Type
        /// `==` of the type, erased: `nil` for a type that is not `Equatable`.
        let equal: ((Any, Any) -> Bool)?

        init(of value: Any) {
            type = Swift.type(of: value)
            if let equatable = value as? any Equatable { equal = Self.erasedEquality(equatable) } else { equal = nil }
        }

        /// Whether `b` matches `a` (a value of this type): ``ValueEquality/plain(_:_:areEqual:)``
        /// with the type's facts looked up once.
        func match(_ a: Any, _ b: Any) -> Bool {
            if let equal { return equal(a, b) }
            return Swift.type(of: b) == type && String(describing: a) == String(describing: b)
        }

        private static func erasedEquality<T: Equatable>(_: T) -> (Any, Any) -> Bool {
            { a, b in (a as? T)?.isEqual(to: b) ?? false }
        }
    }
}

extension Equatable {
    /// `==` against a value of unknown type; `as?` as Swift casts (an Optional holding a
    /// `Self` matches a `Self` of the same value). Both of ``ValueEquality``'s erased paths use it.
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
