extension OperatorRegistry {
    /// The operators a spec may name: several sources into one (Core/Operators/Combining).
    static let combining: [OperatorDefinition] = [
        definition("combineLatestAll", "combines the inner observables once the outer one completes", higherOrder: true) { context in
            context.source.map { try innerObservable($0) }.combineLatestAll().map { .value(.list(try $0.map(plain))) }
        },
        definition("zipAll", "zips the inner observables once the outer one completes", higherOrder: true) { context in
            context.source.map { try innerObservable($0) }.zipAll().map { .value(.list(try $0.map(plain))) }
        },
        definition("sequenceEqual", "emits whether both inputs emit the same values in order", inputs: 2...2) { context in
            context.inputs[0].map { try plain($0) }.sequenceEqual(context.inputs[1].map { try plain($0) }).map { .value(.bool($0)) }
        },
        definition("forkJoin", "emits every input's last value when all have completed", inputs: 2...8) { context in
            Observable.forkJoin(context.inputs).map { .value(.list(try $0.map(plain))) }
        },
        definition("combineLatest", "combines the latest value of every input", inputs: 2...8, [optionalCombiner()]) { context in
            let combine = combiner(context)
            return Observable.combineLatest(context.inputs).map(combine)
        },
        definition("zip", "pairs the n-th values of the inputs", inputs: 2...8, [optionalCombiner()]) { context in
            let combine = combiner(context)
            return Observable.zip(context.inputs).map(combine)
        },
        definition(
            "withLatestFrom", "combines each value of the first input with the latest of the second", inputs: 2...2,
            [optionalCombiner()]
        ) {
            context in
            let combine = combiner(context)
            return context.source.withLatestFrom(context.inputs[1]) { try combine([$0, $1]) }
        },
        definition("amb", "mirrors whichever input emits first (RxJS race)", inputs: 2...8) { context in Observable.amb(context.inputs) },
        definition("then", "ignores the first input's values, then continues with the second (ReactiveCocoa then:)", inputs: 2...2) {
            context in
            context.source.then { context.inputs[1] }
        },
    ]
}
