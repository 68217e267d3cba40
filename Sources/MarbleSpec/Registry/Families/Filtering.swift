extension OperatorRegistry {
    /// The operators a spec may name: which values pass, and when the output ends (Core/Operators/Filtering).
    static let filtering: [OperatorDefinition] = [
        definition("filter", "passes the values for which the expression holds", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.filter { try f([try plain($0)]).truthy }
        },
        definition("take", "emits the first count values, then completes", [count()]) { context in context.source.take(try context.count(0))
        },
        definition("takeLast", "emits the last count values at completion", [count()]) { context in
            context.source.takeLast(try context.count(0))
        },
        definition("takeWhile", "emits while the expression holds", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.take(while: { try f([try plain($0)]).truthy })
        },
        definition("takeUntil", "mirrors the first input until the second emits", inputs: 2...2) { context in
            context.source.take(until: context.inputs[1])
        },
        definition("skip", "drops the first count values", [count()]) { context in context.source.skip(try context.count(0)) },
        definition("skipWhile", "drops values while the expression holds", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.skip(while: { try f([try plain($0)]).truthy })
        },
        definition("skipUntil", "drops values until the second input emits", inputs: 2...2) { context in
            context.source.skip(until: context.inputs[1])
        },
        definition("distinctUntilChanged", "drops values equal to the one before") { context in
            context.source.distinctUntilChanged { try plain($0) == plain($1) }
        },
        definition(
            "first", "emits the first value (for which the expression holds) and completes; at completion the default, else an error",
            [optionalFunction("x", name: "predicate"), Parameter(label: "default", kind: .value, optional: true, name: "value")]
        ) { context in
            let f = context.function(0)
            let predicate: (SpecItem) throws -> Bool = { item in try f.map { try $0([try plain(item)]).truthy } ?? true }
            if context.arguments[1] != nil { return context.source.first(where: predicate, default: .value(try context.constant(1))) }
            return context.source.first(where: predicate)
        },
        definition("last", "emits the last value at completion (errors when empty)") { context in context.source.last() },
        definition("elementAt", "emits the value at an index", [count("index")]) { context in context.source.elementAt(try context.count(0))
        },
        definition("ignoreElements", "keeps only completion or error") { context in context.source.ignoreElements() },
        definition("distinct", "drops values seen before") { context in context.source.distinct(by: { try plain($0) }) },
        definition(
            "single", "emits the only value (for which the expression holds) at completion; a second one or none is an error",
            [optionalFunction("x", name: "predicate")]
        ) { context in
            guard let f = context.function(0) else { return context.source.single() }
            return context.source.single { try f([try plain($0)]).truthy }
        },
        definition("takeFor", "emits values for a duration, then completes", [frames()]) { context in
            context.source.take(for: try context.frames(0), scheduler: context.scheduler)
        },
        definition("skipFor", "drops values for a duration", [frames()]) { context in
            context.source.skip(for: try context.frames(0), scheduler: context.scheduler)
        },
        definition("find", "emits the first value for which the expression holds, or nil at completion", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.find { try f([try plain($0)]).truthy }.map { $0 ?? .value(.string("nil")) }
        },
        definition("findIndex", "emits the index of the first value for which the expression holds, or -1 at completion", [function("x")]) {
            context in
            let f = context.function(0)!
            return context.source.firstIndex { try f([try plain($0)]).truthy }.map { .value(.int($0)) }
        },
        definition("skipLast", "drops the last count values (emits each once count newer ones arrived)", [count()]) { context in
            context.source.skipLast(try context.count(0))
        },
        definition("throwIfEmpty", "fails a source that completes without a value") { context in context.source.throwIfEmpty() },
        definition("ifEmpty", "emits a default when the source completes empty", [value("default")]) { context in
            context.source.ifEmpty(default: .value(try context.constant(0)))
        },
        definition("takeUntilReplacement", "passes the first input until the second sends anything, then the second", inputs: 2...2) {
            context in
            context.source.take(untilReplacedBy: context.inputs[1])
        },
        definition("element", "emits the value at an index and completes (element(at:))", [count("index", label: "at")]) { context in
            context.source.element(at: try context.count(0))
        },
    ]
}
