extension OperatorRegistry {
    /// The operators a spec may name: actions beside the values (Core/Operators/SideEffects).
    static let sideEffects: [OperatorDefinition] = [
        definition(
            "do", "passes everything through, running a side effect per value (drawn on its own line: the expression's result)",
            [function("x")]
        ) {
            context in
            let f = context.function(0)!
            return context.source.do(onNext: { context.effects.note(try f([try plain($0)]).description, on: "do") })
        },
        definition(
            "finalize", "passes everything through, then runs an action once the subscription ends (drawn on its own line)",
            [Parameter(label: nil, kind: .value, optional: true, name: "label")]
        ) { context in
            let label = context.arguments[0] != nil ? try context.constant(0).description : "f"
            return context.source.finalize { context.effects.note(label, on: "finalize") }
        },
    ]
}
