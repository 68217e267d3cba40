extension OperatorRegistry {
    /// The operators a spec may name: errors caught, replaced or retried (Core/Operators/ErrorHandling).
    static let errorHandling: [OperatorDefinition] = [
        definition("catch", "continues with the second input after an error", inputs: 2...2) { context in
            let fallback = context.inputs[1]
            return context.source.catch { _ in fallback }
        },
        definition("catchAndReturn", "ends with a value after an error", [value()]) { context in
            context.source.catchAndReturn(.value(try context.constant(0)))
        },
        definition("retry", "resubscribes after an error, count times (every time without a count)", [count(optional: true)]) { context in
            context.arguments[0] == nil ? context.source.retry() : context.source.retry(try context.count(0))
        },
    ]
}
