extension OperatorRegistry {
    /// The operators a spec may name: one value from the whole source (Core/Operators/Aggregating).
    static let aggregating: [OperatorDefinition] = [
        definition(
            "min", "emits the smallest value at completion (by the comparison a < b, if given)",
            [optionalFunction("a", "b", name: "comparison")]
        ) { context in
            if let less = context.function(0) { return context.source.min { try less([try plain($0), try plain($1)]).truthy } }
            return context.source.map { OrderedSpecValue(value: try plain($0)) }.min().map { .value($0.value) }
        },
        definition(
            "max", "emits the largest value at completion (by the comparison a < b, if given)",
            [optionalFunction("a", "b", name: "comparison")]
        ) { context in
            if let less = context.function(0) { return context.source.max { try less([try plain($0), try plain($1)]).truthy } }
            return context.source.map { OrderedSpecValue(value: try plain($0)) }.max().map { .value($0.value) }
        },
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
}
