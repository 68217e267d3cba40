extension OperatorRegistry {
    /// The operators a spec may name: sources made from nothing (Core/Observables/Creation.swift, Generate.swift).
    static let creation: [OperatorDefinition] = [
        definition(
            "generate", "emits a state, then the next one, while the condition holds", inputs: 0...0,
            [value("initial"), function("x", name: "condition"), function("x", name: "iterate")]
        ) { context in
            let condition = context.function(1)!
            let iterate = context.function(2)!
            return Observable.generate(
                initialState: try context.constant(0), condition: { try condition([$0]).truthy }, iterate: { try iterate([$0]) }
            ).map { .value($0) }
        },
        definition("interval", "emits 0, 1, 2, … every period", inputs: 0...0, [frames("period")]) { context in
            let period = try context.frames(0)
            guard period > .zero else {
                throw EvaluationError("interval's period must be at least 1 frame (0 emits forever at frame 0)")
            }
            return Observable<Int>.interval(period, scheduler: context.scheduler).map { .value(.int($0)) }
        },
        definition("timer", "emits 0 after a duration", inputs: 0...0, [frames()]) { context in
            Observable<Int>.timer(try context.frames(0), scheduler: context.scheduler).map { .value(.int($0)) }
        },
    ]
}
