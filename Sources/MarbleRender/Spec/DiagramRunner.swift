/// One event on a drawn timeline, in frames.
public struct TimelineEvent: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case value(String)
        case complete
        case error(String)
    }
    public var frame: Double
    public var kind: Kind
}

/// An inner observable drawn from its emission point.
public struct InnerTimeline: Equatable, Sendable {
    /// The emission frame on the parent timeline.
    public var start: Double
    /// Events relative to `start`.
    public var events: [TimelineEvent]
    /// Relative frame after which the inner was unsubscribed (drawn faded), if it was cut short.
    public var fadedAfter: Double?
}

/// One timeline to draw.
public struct TimelineModel: Equatable, Sendable {
    public var name: String
    public var events: [TimelineEvent]
    public var inners: [InnerTimeline] = []
    /// Frames at which this timeline differs from the one it is compared with.
    public var highlights: [Double] = []
}

/// Everything a diagram shows, computed from a spec.
public struct DiagramModel: Equatable, Sendable {
    public var title: String
    public var inputs: [TimelineModel]
    /// The operator box text (`nil`: no box, the spec gave the output itself).
    public var operatorLabel: String?
    public var output: TimelineModel
    /// The expected output, drawn when it differs from the computed one.
    public var expected: TimelineModel?
    /// Mismatches between expected and actual, in words (empty when they agree or there is no expectation).
    public var mismatches: [String]
    /// The failure message with both diagrams aligned, when they differ.
    public var mismatchMessage: String?
    /// Whether a test reported this diagram as failing.
    public var failed: Bool
    /// The last frame any timeline reaches.
    public var frames: Double
}

/// Runs a spec's operator on its inputs in virtual time.
public enum DiagramRunner {
    /// The longest diagram drawn, in frames (at 32 px a frame, 64 000 px).
    public static let maxFrames = 2_000

    /// Computes the diagram, or fails with a located error.
    public static func run(_ spec: DiagramSpec) throws(SpecError) -> DiagramModel {
        let scheduler = TestScheduler(frame: .milliseconds(1), stepLimit: 200_000, reporter: CollectingReporter())
        let parser = scheduler.parser
        func error(line: Int, column: Int, _ message: String) -> SpecError {
            SpecError(
                file: spec.file, line: line, column: column, lineText: spec.lines.indices.contains(line - 1) ? spec.lines[line - 1] : "",
                message: message)
        }
        func parse(_ stream: DiagramSpec.Stream, kind: DiagramKind, resolve: (String) -> SpecItem?) throws(SpecError) -> [Recorded<
            Event<SpecItem>
        >] {
            do {
                return try parser.parse(stream.diagram, kind: kind, error: MarbleError(), resolve: resolve)
            } catch {
                throw SpecError(
                    file: spec.file, line: stream.line, column: stream.column + error.column - 1, lineText: spec.lines[stream.line - 1],
                    message: error.reason)
            }
        }
        // Values: the `values:` entry for the key, else a number for digits, else the text.
        func valueFor(_ key: String) -> SpecValue? {
            if let v = spec.values[key] { return v }
            if let i = Int(key) { return .int(i) }
            return .string(key)
        }

        // Inner observables first: inputs refer to them by name.
        var inners: [String: InnerStream] = [:]
        for inner in spec.inners {
            let messages = try parse(inner, kind: .cold) { key in valueFor(key).map { .value($0) } }
            let cold = scheduler.cold(messages: messages)
            inners[inner.name] = InnerStream(name: inner.name, observable: cold.asObservable(), messages: messages) { cold.subscriptions }
        }
        func resolve(_ key: String) -> SpecItem? {
            if let inner = inners[key] { return .inner(name: key, inner) }
            return valueFor(key).map { .value($0) }
        }

        var inputObservables: [Observable<SpecItem>] = []
        var inputMessages: [[Recorded<Event<SpecItem>>]] = []
        for input in spec.inputs {
            let messages = try parse(input, kind: input.kind == .hot ? .hot : .cold, resolve: resolve)
            inputMessages.append(messages)
            inputObservables.append(
                input.kind == .hot ? scheduler.hot(messages: messages).asObservable() : scheduler.cold(messages: messages).asObservable())
        }

        var outputEvents: [Recorded<Event<SpecItem>>]
        var operatorLabel: String?
        if let call = spec.call {
            guard let definition = OperatorRegistry.all[call.name] else {
                let hint = OperatorRegistry.suggestion(for: call.name).map { " (did you mean '\($0)'?)" } ?? ""
                throw error(
                    line: call.line, column: call.column, "unknown operator '\(call.name)'\(hint); `marblegen operators` lists them")
            }
            guard definition.inputs.contains(spec.inputs.count) else {
                let wanted =
                    definition.inputs.lowerBound == definition.inputs.upperBound
                    ? "\(definition.inputs.lowerBound)" : "\(definition.inputs.lowerBound) to \(definition.inputs.upperBound)"
                throw error(
                    line: call.line, column: call.column,
                    "'\(call.name)' takes \(wanted) input\(wanted == "1" ? "" : "s"), the spec has \(spec.inputs.count)")
            }
            let bound = try bind(call, to: definition, inputNames: spec.inputs.map(\.name), error: error)
            let context = OperatorContext(
                inputs: inputObservables, inputNames: spec.inputs.map(\.name), arguments: bound, definition: definition,
                scheduler: scheduler)
            let observable: Observable<SpecItem>
            do {
                observable = try definition.build(context)
            } catch {
                throw SpecError(
                    file: spec.file, line: call.line, column: call.column, lineText: spec.lines[call.line - 1], message: "\(error)")
            }
            // Bound the run: endless sources (interval) stop a little after the last input event.
            let longest = (spec.inputs + [spec.expected].compactMap { $0 }).map { frameLength($0.diagram, parser) }.max() ?? 0
            scheduler.maxFrames = max(longest, 10) + 12
            let recording = scheduler.record(observable)
            scheduler.flush()
            recording.dispose()
            outputEvents = recording.events
            operatorLabel = call.text
        } else if let actual = spec.actual {
            outputEvents = try parse(actual, kind: .expected, resolve: resolve)
            operatorLabel = spec.title
            scheduler.flush()
        } else {
            outputEvents = []
            scheduler.flush()
        }

        var expectedModel: TimelineModel?
        var mismatches: [String] = []
        var message: String?
        var outputModel = timeline(spec.actual == nil ? "output" : "actual", outputEvents, frame: scheduler.frame)
        if let expected = spec.expected {
            let expectedEvents = try parse(expected, kind: .expected, resolve: resolve)
            let erase = { (events: [Recorded<Event<SpecItem>>]) in
                events.map { Recorded(time: $0.time, value: $0.value.map { RecordedValue.plain($0.description) }) }
            }
            let comparison = MarbleComparison(expected: erase(expectedEvents), actual: erase(outputEvents), frame: scheduler.frame)
            if !comparison.matches {
                mismatches = comparison.mismatches.map(\.description)
                message = comparison.message()
                let frames = Array(Set(comparison.mismatches.map { $0.time / scheduler.frame })).sorted()
                var model = timeline("expected", expectedEvents, frame: scheduler.frame)
                model.highlights = frames
                outputModel.highlights = frames
                expectedModel = model
            }
        }

        var inputs: [TimelineModel] = []
        for (index, input) in spec.inputs.enumerated() {
            var model = timeline(input.name, inputMessages[index].filter { $0.time >= .zero }, frame: scheduler.frame)
            model.inners = innerTimelines(inputMessages[index], frame: scheduler.frame)
            inputs.append(model)
        }
        let all = inputs + [outputModel] + [expectedModel].compactMap { $0 }
        var frames = all.flatMap { t in t.events.map(\.frame) + t.inners.flatMap { i in i.events.map { i.start + $0.frame } } }.max() ?? 0
        frames = max(
            frames,
            (spec.inputs + [spec.expected, spec.actual].compactMap { $0 }).map { Double(frameLength($0.diagram, parser)) }.max() ?? 0)
        if frames > Double(maxFrames) {
            let longest = (spec.inputs + [spec.expected, spec.actual].compactMap { $0 })
                .max { frameLength($0.diagram, parser) < frameLength($1.diagram, parser) }
            throw error(
                line: longest?.line ?? 1, column: longest?.column ?? 1,
                "the diagram spans \(Int(frames)) frames; marblegen draws at most \(maxFrames) (shorten the time progressions)")
        }
        return DiagramModel(
            title: spec.title ?? spec.call?.text ?? "diagram", inputs: inputs, operatorLabel: operatorLabel, output: outputModel,
            expected: expectedModel, mismatches: mismatches, mismatchMessage: message, failed: spec.status == "failed", frames: frames)
    }

    /// Binds positional and labelled arguments to parameter indices and checks each
    /// expression's names.
    static func bind(
        _ call: DiagramSpec.Call, to definition: OperatorDefinition, inputNames: [String],
        error fail: (Int, Int, String) -> SpecError
    ) throws(SpecError) -> [Int: Expression] {
        let error = fail
        var bound: [Int: Expression] = [:]
        var nextPositional = 0
        for argument in call.arguments {
            let index: Int
            if let label = argument.label {
                guard let i = definition.parameters.firstIndex(where: { $0.label == label }) else {
                    throw error(
                        call.line, argument.column, "'\(call.name)' has no argument labelled '\(label)'; usage: \(definition.usage)")
                }
                index = i
            } else {
                while nextPositional < definition.parameters.count, definition.parameters[nextPositional].label != nil {
                    nextPositional += 1
                }
                guard nextPositional < definition.parameters.count else {
                    throw error(call.line, argument.column, "too many arguments; usage: \(definition.usage)")
                }
                index = nextPositional
                nextPositional += 1
            }
            if bound[index] != nil { throw error(call.line, argument.column, "argument given twice; usage: \(definition.usage)") }
            let parameter = definition.parameters[index]
            switch parameter.kind {
            case .function(let names):
                let allowed = names == ["$inputs"] ? inputNames : names
                for (name, column) in argument.expression.names where !allowed.contains(name) {
                    throw error(
                        call.line, column,
                        "unknown name '\(name)'; here the expression may use \(allowed.map { "'\($0)'" }.joined(separator: ", "))")
                }
            default:
                if let (name, column) = argument.expression.names.first {
                    throw error(call.line, column, "'\(name)': this argument is a constant (\(parameter.name)); usage: \(definition.usage)")
                }
                let value: SpecValue
                do { value = try argument.expression.evaluate([:]) } catch let problem {
                    throw fail(call.line, argument.column, "\(problem)")
                }
                switch (parameter.kind, value) {
                case (.frames, .int(let n)) where n >= 0, (.count, .int(let n)) where n >= 0: break
                case (.frames, _), (.count, _):
                    throw error(call.line, argument.column, "\(parameter.name) must be a whole number ≥ 0, got \(value.literal)")
                case (.bool, .bool): break
                case (.bool, _): throw error(call.line, argument.column, "\(parameter.label ?? parameter.name) must be true or false")
                default: break
                }
            }
            bound[index] = argument.expression
        }
        for (index, parameter) in definition.parameters.enumerated() where !parameter.optional && bound[index] == nil {
            throw error(call.line, call.column, "'\(call.name)' needs \(parameter.name); usage: \(definition.usage)")
        }
        return bound
    }

    static func frameLength(_ diagram: String, _ parser: MarbleParser) -> Int {
        // The diagram's extent: its events' times, or its length in frames when it has none.
        let events = (try? parser.parse(diagram, kind: .cold, error: MarbleError()) { $0 }) ?? []
        let last = events.map { Int(($0.time / .milliseconds(1)).rounded(.up)) }.max() ?? 0
        let dashes = diagram.filter { $0 == "-" }.count
        return max(last + 1, dashes)
    }

    static func timeline(_ name: String, _ events: [Recorded<Event<SpecItem>>], frame: Duration) -> TimelineModel {
        TimelineModel(name: name, events: events.map { event(for: $0, frame: frame) })
    }

    static func event(for recorded: Recorded<Event<SpecItem>>, frame: Duration) -> TimelineEvent {
        let f = recorded.time / frame
        switch recorded.value {
        case .next(let item): return TimelineEvent(frame: f, kind: .value(item.description))
        case .completed: return TimelineEvent(frame: f, kind: .complete)
        case .error(let e): return TimelineEvent(frame: f, kind: .error(String(describing: e)))
        }
    }

    /// Inner timelines of a higher-order input, with the part after an early unsubscription
    /// marked to be drawn faded.
    static func innerTimelines(_ messages: [Recorded<Event<SpecItem>>], frame: Duration) -> [InnerTimeline] {
        var used: [String: Int] = [:]
        var result: [InnerTimeline] = []
        for message in messages {
            guard case .next(.inner(let name, let stream)) = message.value else { continue }
            let events = stream.messages.map { event(for: $0, frame: frame) }
            // The n-th emission of an inner matches its n-th subscription, if any.
            let logs = stream.subscriptions()
            let n = used[name, default: 0]
            used[name] = n + 1
            // Drawn from where it really ran: its subscription (later than its emission when
            // an operator queued it); never subscribed (dropped) means drawn faded throughout.
            var start = message.time
            var faded: Double?
            if n < logs.count {
                start = logs[n].subscribed
                if let end = logs[n].unsubscribed {
                    let relative = (end - start) / frame
                    let natural = events.map(\.frame).max() ?? 0
                    if relative < natural { faded = relative }
                }
            } else {
                faded = 0
            }
            result.append(InnerTimeline(start: start / frame, events: events, fadedAfter: faded))
        }
        return result
    }
}
