/// When an operator that follows one inner observable at a time (`flatMapLatest`,
/// `flatMapFirst`) completes: once the source and the current inner have both completed.
/// Touch it only inside the operator's `Gate.locked`.
struct OneInnerCompletion {
    var innerActive = false
    private var outerDone = false

    mutating func innerCompleted<Element>(_ gate: Gate<Element>) {
        innerActive = false
        if outerDone { gate.emit(.completed) }
    }

    mutating func outerCompleted<Element>(_ gate: Gate<Element>) {
        outerDone = true
        if !innerActive { gate.emit(.completed) }
    }
}
