/// State that one subscription owns and touches from one thread at a time: in serialized
/// event delivery, or under the operator's lock.
///
/// A `var` captured by an escaping closure is boxed by the compiler and every access pays a
/// dynamic exclusivity check (`swift_beginAccess`: a thread-local access set, a fifth of a
/// `scan` chain's time). Events reach an operator one at a time (the observer contract) and
/// locks serialize the rest, so these accesses cannot overlap; this box skips the check.
@usableFromInline
final class SerialState<Value> {
    // measured: range chain 3.5× → 2.6× hand-chained closures (e36f223, A/B, release).
    @exclusivity(unchecked) @usableFromInline var value: Value

    @inlinable
    init(_ value: Value) { self.value = value }
}
