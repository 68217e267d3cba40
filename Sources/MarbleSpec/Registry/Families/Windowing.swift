extension OperatorRegistry {
    /// The operators a spec may name: the source split into inner observables (Core/Operators/Windowing).
    static let windowing: [OperatorDefinition] = [
        definition(
            "windowCount", "splits into windows of count values, a new one every skip values", [count(), count("skip", optional: true)]
        ) {
            context in
            let n = try context.count(0)
            let skip = try context.count(1, default: n)
            guard n > 0, skip > 0 else { throw EvaluationError("windowCount needs a positive count and skip") }
            return context.lettered(context.source.window(count: n, skip: skip))
        },
        definition(
            "windowTime", "splits into windows of a duration: consecutive (closed early at count values), or opened every shift",
            [frames(), count(label: "count", optional: true), frames("shift", label: "every", optional: true)]
        ) { context in
            let span = try context.frames(0)
            guard span > .zero else { throw EvaluationError("windowTime needs a window of at least 1 frame") }
            if context.arguments[2] != nil {
                let shift = try context.frames(2)
                guard shift > .zero else { throw EvaluationError("windowTime needs a shift of at least 1 frame") }
                return context.lettered(context.source.window(timeSpan: span, timeShift: shift, scheduler: context.scheduler))
            }
            if context.arguments[1] != nil {
                let count = try context.count(1)
                guard count > 0 else { throw EvaluationError("windowTime needs a count of at least 1") }
                return context.lettered(context.source.window(timeSpan: span, count: count, scheduler: context.scheduler))
            }
            return context.lettered(context.source.window(timeSpan: span, scheduler: context.scheduler))
        },
        definition("window", "splits into a new window whenever the second input emits", inputs: 2...2) { context in
            context.lettered(context.source.window(context.inputs[1]))
        },
        definition(
            "windowToggle", "opens a window at each value of the second input, closing it after a duration", inputs: 2...2, [frames()]
        ) {
            context in
            let span = try context.frames(0)
            return context.lettered(
                context.source.window(toggle: context.inputs[1]) { _ in Observable<Int>.timer(span, scheduler: context.scheduler) })
        },
        definition("windowWhen", "splits into consecutive windows, each closed when a timer of a duration fires", [frames()]) { context in
            let span = try context.frames(0)
            guard span > .zero else { throw EvaluationError("windowWhen needs a window of at least 1 frame") }
            return context.lettered(context.source.window(closing: { Observable<Int>.timer(span, scheduler: context.scheduler) }))
        },
        definition("groupBy", "emits a group per key the expression gives, named by the key", [function("x", name: "key")]) { context in
            let f = context.function(0)!
            return context.source.groupBy { try f([try plain($0)]) }.map { group in context.emitted(group, name: group.key.description) }
        },
        definition("partition", "splits into values that satisfy the expression (T) and the rest (F)", [function("x")]) { context in
            let f = context.function(0)!
            let (matching, rest) = context.source.partition { try f([try plain($0)]).truthy }
            return Observable.deferred { Observable.of(context.emitted(matching, name: "T"), context.emitted(rest, name: "F")) }
        },
    ]
}
