/// When an operator that follows one inner observable at a time (`flatMapLatest`,
/// `flatMapFirst`) completes: once the source and the current inner have both completed.
/// Touch it only inside the operator's `Gate.locked`.
@usableFromInline
struct OneInnerCompletion {
    @usableFromInline var innerActive = false
    @usableFromInline var outerDone = false

    @inlinable init() {}

    @inlinable mutating func innerCompleted<Element>(_ gate: Gate<Element>) {
        innerActive = false
        if outerDone { gate.emit(.completed) }
    }

    @inlinable mutating func outerCompleted<Element>(_ gate: Gate<Element>) {
        outerDone = true
        if !innerActive { gate.emit(.completed) }
    }
}
