extension OperatorRegistry {
    /// The operators a spec may name: Core/Operators/Utility.
    static let utility: [OperatorDefinition] = [
        definition(
            "withUnretained", "pairs each value with an object held weakly; completes at the first value after the object is gone",
            [value("object"), frames("release", label: "releasedAt", optional: true)]
        ) { context in
            let owner = SpecObject(name: try context.constant(0).description)
            if context.arguments[1] != nil {
                let holder = context.effects.keep(owner)
                _ = context.scheduler.schedule(after: try context.frames(1)) { holder.object = nil }
            } else {
                _ = context.effects.keep(owner)
            }
            return context.source.withUnretained(owner) { object, item in .value(.string("(\(object.name), \(try plain(item)))")) }
        }
    ]
}
