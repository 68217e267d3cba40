extension OperatorRegistry {
    /// The operators a spec may name: inner observables flattened into one output, and repetition (Core/Operators/Flattening).
    static let flattening: [OperatorDefinition] = [
        definition(
            "repeat", "subscribes to the source count times in a row (without end without a count), after a delay if given",
            [count(optional: true), frames("delay", label: "delay", optional: true)]
        ) { context in
            let count = context.arguments[0] == nil ? nil : try context.count(0)
            if context.arguments[1] != nil {
                return context.source.repeat(count, delay: try context.frames(1), scheduler: context.scheduler)
            }
            return count.map { context.source.repeat($0) } ?? context.source.repeat()
        },
        definition(
            "merge", "interleaves the inputs (or the inner observables of one input)", inputs: 1...8, higherOrder: true,
            [count("maxConcurrent", label: "maxConcurrent", optional: true)]
        ) { context in
            if context.inputs.count == 1 {
                return context.source.flatMap(maxConcurrent: try context.count(0, default: .max)) { try innerObservable($0) }
            }
            return Observable.merge(context.inputs, maxConcurrent: try context.count(0, default: .max))
        },
        definition("concat", "subscribes to one input (or inner observable) after another", inputs: 1...8, higherOrder: true) { context in
            if context.inputs.count == 1 { return context.source.concatMap { try innerObservable($0) } }
            return Observable.concat(context.inputs)
        },
        definition(
            "flatMap", "merges the inner observables, at most maxConcurrent at once", higherOrder: true,
            [count("maxConcurrent", label: "maxConcurrent", optional: true)]
        ) { context in
            context.source.flatMap(maxConcurrent: try context.count(0, default: .max)) { try innerObservable($0) }
        },
        definition("concatMap", "subscribes to the inner observables one after another", higherOrder: true) { context in
            context.source.concatMap { try innerObservable($0) }
        },
        definition("flatMapLatest", "switches to each new inner observable (RxJS switchMap)", higherOrder: true) { context in
            context.source.flatMapLatest { try innerObservable($0) }
        },
        definition("switchLatest", "mirrors the latest inner observable", higherOrder: true) { context in
            context.source.flatMapLatest { try innerObservable($0) }
        },
        definition("exhaustAll", "mirrors an inner observable, ignoring those arriving while it runs", higherOrder: true) { context in
            context.source.map { try innerObservable($0) }.exhaustAll()
        },
        definition("flatMapFirst", "ignores new inner observables while one is active (RxJS exhaustMap)", higherOrder: true) { context in
            context.source.flatMapFirst { try innerObservable($0) }
        },
        definition(
            "mergeScan", "accumulates through inners that emit the expression after a delay, merged",
            [value("seed"), function("acc", "x"), frames(), count(label: "concurrent", optional: true)]
        ) { context in
            let f = context.function(1)!
            let delay = try context.frames(2)
            return context.source.mergeScan(SpecItem.value(try context.constant(0)), maxConcurrent: try context.count(3, default: .max)) {
                acc, x in
                context.delayed(try f([try plain(acc), try plain(x)]), by: delay)
            }
        },
        definition(
            "switchScan", "accumulates through inners that emit the expression after a delay, switching",
            [value("seed"), function("acc", "x"), frames()]
        ) { context in
            let f = context.function(1)!
            let delay = try context.frames(2)
            return context.source.switchScan(SpecItem.value(try context.constant(0))) { acc, x in
                context.delayed(try f([try plain(acc), try plain(x)]), by: delay)
            }
        },
        definition(
            "expand", "emits each value and feeds the expression of it back in after a delay, while the condition holds",
            [function("x"), frames(), labelledFunction("while", "x", name: "condition"), count(label: "concurrent", optional: true)]
        ) { context in
            let f = context.function(0)!
            let condition = context.function(2)
            let delay = try context.frames(1)
            return context.source.expand(maxConcurrent: try context.count(3, default: .max)) { item -> Observable<SpecItem> in
                let x = try plain(item)
                if let condition, try !condition([x]).truthy { return .empty() }
                return context.delayed(try f([x]), by: delay)
            }
        },
    ]
}
