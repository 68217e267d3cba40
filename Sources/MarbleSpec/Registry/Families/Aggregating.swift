extension OperatorRegistry {
    /// The operators a spec may name: one value from the whole source (Core/Operators/Aggregating).
    static let aggregating: [OperatorDefinition] = [
        extremum("min", "smallest", by: { $0.min(by: $1) }, naturally: { $0.min() }),
        extremum("max", "largest", by: { $0.max(by: $1) }, naturally: { $0.max() }),
        definition("count", "emits how many values the source had, at completion") { context in
            context.source.count().map { .value(.int($0)) }
        },
        definition("isEmpty", "emits false at the first value, or true at an empty completion") { context in
            context.source.isEmpty().map { .value(.bool($0)) }
        },
        definition("every", "emits false at the first value failing the expression, or true at completion", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.every { try f([try plain($0)]).truthy }.map { .value(.bool($0)) }
        },
        definition("contains", "emits true at the first value satisfying the expression, false at an empty completion", [function("x")]) {
            context in
            let f = context.function(0)!
            return context.source.contains { try f([try plain($0)]).truthy }.map { .value(.bool($0)) }
        },
    ]

    /// `min` or `max`: by the spec's comparison `a < b` when given, else numbers by value and
    /// anything else by its text.
    static func extremum(
        _ name: String, _ superlative: String,
        by pick: @escaping @Sendable (Observable<SpecItem>, @escaping (SpecItem, SpecItem) throws -> Bool) -> Observable<SpecItem>,
        naturally pickNatural: @escaping @Sendable (Observable<OrderedSpecValue>) -> Observable<OrderedSpecValue>
    ) -> OperatorDefinition {
        definition(
            name, "emits the \(superlative) value at completion (by the comparison a < b, if given)",
            [optionalFunction("a", "b", name: "comparison")]
        ) { context in
            if let less = context.function(0) { return pick(context.source) { try less([try plain($0), try plain($1)]).truthy } }
            return pickNatural(context.source.map { OrderedSpecValue(value: try plain($0)) }).map { .value($0.value) }
        }
    }
}
