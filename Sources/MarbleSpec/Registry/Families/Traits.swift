extension OperatorRegistry {
    /// The operators a spec may name: conversions to traits (Core/Traits).
    static let traits: [OperatorDefinition] = [
        definition("asMaybe", "emits the value, if any, at completion; a second value is an error") { context in
            context.source.asMaybe().asObservable()
        },
        definition("asCompletable", "drops the values, keeping completion and error") { context in
            context.source.asCompletable().asObservable().map { _ -> SpecItem in }
        },
    ]
}
