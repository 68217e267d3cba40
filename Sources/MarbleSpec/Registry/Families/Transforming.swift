extension OperatorRegistry {
    /// The operators a spec may name: values turned into other values, or gathered (Core/Operators/Transforming).
    static let transforming: [OperatorDefinition] = [
        definition("map", "transforms each value", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.map { .value(try f([try plain($0)])) }
        },
        definition("scan", "emits each running accumulation", [value("seed"), function("acc", "x")]) { context in
            let f = context.function(1)!
            return context.source.scan(SpecItem.value(try context.constant(0))) { acc, x in .value(try f([try plain(acc), try plain(x)])) }
        },
        definition("reduce", "emits the final accumulation when the source completes", [value("seed"), function("acc", "x")]) { context in
            let f = context.function(1)!
            return context.source.reduce(SpecItem.value(try context.constant(0))) { acc, x in .value(try f([try plain(acc), try plain(x)]))
            }
        },
        definition("startWith", "emits a value first", [value()]) { context in
            context.source.startWith(.value(try context.constant(0)))
        },
        definition("pairwise", "emits each value with the one before it") { context in
            context.source.pairwise().map { .value(.string("\($0)\($1)")) }
        },
        definition("buffer", "emits arrays of count values", [count()]) { context in
            let n = try context.count(0)
            guard n > 0 else { throw EvaluationError("buffer needs a positive count") }
            return context.source.buffer(count: n).map { .value(.list(try $0.map(plain))) }
        },
        definition("bufferTime", "emits the values of each time window", [frames(), count(label: "count", optional: true)]) { context in
            let span = try context.frames(0)
            let n = try context.count(1, default: .max)
            guard span > .zero, n > 0 else { throw EvaluationError("bufferTime needs a positive window and count") }
            return context.source.buffer(timeSpan: span, count: n, scheduler: context.scheduler).map { .value(.list(try $0.map(plain))) }
        },
        definition("materialize", "turns events into values") { context in
            context.source.materialize().map { event in
                switch event {
                case .next(let v): return .value(.string("next(\(v))"))
                case .error: return .value(.string("error"))
                case .completed: return .value(.string("completed"))
                }
            }
        },
        definition("bufferCount", "emits arrays of count values, a new one every skip values", [count(), count("skip")]) { context in
            let n = try context.count(0)
            let skip = try context.count(1)
            guard n > 0, skip > 0 else { throw EvaluationError("bufferCount needs a positive count and skip") }
            return context.source.buffer(count: n, skip: skip).map { .value(.list(try $0.map(plain))) }
        },
        definition("enumerated", "pairs each value with its index") { context in
            context.source.enumerated().map { .value(.string("\($0.index)\($0.element)")) }
        },
        definition("endWith", "emits a value after the source completes", [value()]) { context in
            context.source.endWith(.value(try context.constant(0)))
        },
        definition("bufferNotifier", "emits what the first input collected whenever the second emits (RxJS buffer)", inputs: 2...2) {
            context in
            context.inputs[0].buffer(context.inputs[1]).map { .value(.list(try $0.map(plain))) }
        },
        definition(
            "combinePrevious", "combines each value with the one before, the first with start", [value("start"), function("previous", "x")]
        ) {
            context in
            let f = context.function(1)!
            return context.source.combinePrevious(SpecItem.value(try context.constant(0))) { p, x in
                .value(try f([try plain(p), try plain(x)]))
            }
        },
        definition("compactMap", "transforms each value, dropping those that become nil", [function("x")]) { context in
            let f = context.function(0)!
            return context.source.compactMap { item -> SpecItem? in
                let result = try f([try plain(item)])
                return result == .null ? nil : .value(result)
            }
        },
        definition("toArray", "collects every value into one list, emitted at completion") { context in
            context.source.toArray().map { items in .value(.list(try items.map(plain))) }
        },
        definition("dematerialize", "turns values written as next(v), completed or error back into events") { context in
            context.source.map { item -> Event<SpecItem> in try event(described: try plain(item)) }.dematerialize()
        },
    ]
}
