extension OperatorRegistry {
    /// The operators a spec may name: values moved, thinned or stamped in time (Core/Operators/Timing).
    static let timing: [OperatorDefinition] = [
        definition("auditTime", "after a value, waits, then emits the latest value", [frames()]) { context in
            context.source.audit(try context.frames(0), scheduler: context.scheduler)
        },
        definition(
            "audit", "after a value, waits the frames the expression gives for it, then emits the latest value",
            [function("x", name: "frames")]
        ) {
            context in
            let f = context.function(0)!
            return context.source.audit { item in try context.timer(frames: f([try plain(item)]), for: "audit") }
        },
        definition(
            "throttleWhen", "emits a value, then ignores values for the frames the expression gives for it (RxJS throttle)",
            [function("x", name: "frames"), bool("leading"), bool("trailing")]
        ) { context in
            let f = context.function(0)!
            return context.source.throttle(leading: try context.bool(1, default: true), trailing: try context.bool(2, default: false)) {
                item in
                try context.timer(frames: f([try plain(item)]), for: "throttleWhen")
            }
        },
        definition("sampleTime", "emits the latest new value every period", [frames("period")]) { context in
            let period = try context.frames(0)
            guard period > .zero else { throw EvaluationError("sampleTime's period must be at least 1 frame") }
            return context.source.sample(every: period, scheduler: context.scheduler)
        },
        definition("timestamp", "replaces each value by the frame it arrived at") { context in
            let frame = context.scheduler.frame
            return context.source.timestamp(scheduler: context.scheduler).map { .value(.int(Int($0.time / frame))) }
        },
        definition("timeInterval", "replaces each value by the frames since the previous one") { context in
            let frame = context.scheduler.frame
            return context.source.timeInterval(scheduler: context.scheduler).map { .value(.int(Int($0.interval / frame))) }
        },
        definition("debounce", "emits a value once the source is quiet for a duration", [frames()]) { context in
            context.source.debounce(try context.frames(0), scheduler: context.scheduler)
        },
        definition(
            "throttle", "emits a value, then ignores values for a duration",
            [frames(), bool("latest"), bool("leading"), bool("trailing")]
        ) { context in
            let latest = try context.bool(1, default: true)
            return context.source.throttle(
                try context.frames(0), leading: try context.bool(2, default: true), trailing: try context.bool(3, default: latest),
                scheduler: context.scheduler
            )
        },
        definition("delayWhen", "delays each value by the frames the expression gives for it", [function("x", name: "frames")]) { context in
            let f = context.function(0)!
            return context.source.delayWhen { item -> Observable<Int> in
                guard case .int(let n) = try f([try plain(item)]), n >= 0 else {
                    throw EvaluationError("delayWhen needs whole frames ≥ 0")
                }
                return Observable<Int>.timer(context.scheduler.frame * n, scheduler: context.scheduler)
            }
        },
        definition("delayUntil", "holds values until a frame, then passes them in order (RxJS delay(date))", [frames("frame")]) { context in
            context.source.delay(until: try context.frames(0), scheduler: context.scheduler)
        },
        definition("delay", "shifts every value later", [frames()]) { context in
            context.source.delay(try context.frames(0), scheduler: context.scheduler)
        },
        definition("delaySubscription", "subscribes later", [frames()]) { context in
            context.source.delaySubscription(try context.frames(0), scheduler: context.scheduler)
        },
        definition("sample", "emits the latest value when the second input emits", inputs: 2...2) { context in
            context.source.sample(context.inputs[1])
        },
        definition("timeout", "fails (or switches to the second input) when no event comes in time", inputs: 1...2, [frames()]) { context in
            if context.inputs.count == 2 {
                return context.source.timeout(try context.frames(0), other: context.inputs[1], scheduler: context.scheduler)
            }
            return context.source.timeout(try context.frames(0), scheduler: context.scheduler)
        },
    ]
}
