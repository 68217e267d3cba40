/// Runs a spec's operator on its inputs in virtual time and computes what the diagram shows.
///
/// ```swift
/// let spec = try DiagramSpec.parse("input: -a-b|\noperator: map(x + x)")
/// let model = try DiagramRunner.run(spec)   // model.output: -(aa)-(bb)|
/// ```
public enum DiagramRunner {
    /// The longest diagram drawn with every frame (`style: gaps = full`), in frames (at 32 px a
    /// frame, 64 000 px).
    public static let maxFrames = 2_000
    /// The longest diagram drawn with its long idle stretches squeezed (the default): an hour.
    public static let maxCompressedFrames = 3_600_000
    /// The most events one timeline of a spec may hold (more than a drawing can show apart).
    public static let maxEvents = 20_000
    /// The steps a run may take before its operator counts as never settling, plus 8 for each
    /// input event.
    static let baseStepLimit = 20_000

    /// Computes the diagram, or fails with a located error.
    public static func run(_ spec: DiagramSpec) throws(SpecError) -> DiagramModel {
        var run = DiagramRun(spec: spec)
        try run.makeStreams()
        let (outputs, effects, operatorLabel) = try run.computeOutputs()
        let frame = run.scheduler.frame
        // Each subscriber's timeline, then its expected one when they differ.
        var rows: [TimelineModel] = []
        var mismatches: [MarbleMismatch] = []
        var messages: [String] = []
        var firstExpected: TimelineModel?
        for (index, subscriber) in outputs.enumerated() {
            var row = timeline(subscriber.name, subscriber.events, frame: frame)
            row.inners = innerTimelines(subscriber.events, frame: frame)
            if let window = subscriber.window {
                let life = SubscriptionWindow(start: window.subscribe / frame, end: window.unsubscribe.map { $0 / frame })
                row.lifetime = life
                row.subscriptions = [life]
            }
            let comparison = try run.compareWithExpected(subscriber.events, subscriber.expected, output: &row)
            rows.append(row)
            if let comparison {
                if index == 0 { firstExpected = comparison.model } else { rows.append(comparison.model) }
                mismatches += comparison.mismatches
                messages.append(outputs.count > 1 ? "subscriber \(subscriber.name):\n\(comparison.message)" : comparison.message)
            }
        }
        rows += (effects?.timelines ?? []).map { timeline($0.name, $0.events, frame: frame) }
        if let subscriptions = try run.subscriptionRows() {
            rows[0] = subscriptions.actual
            firstExpected = subscriptions.expected
        }
        let inputs = run.inputModels()
        let frames = try run.frameCount(inputs + rows + [firstExpected].compactMap { $0 })
        var model = DiagramModel(
            title: spec.title ?? spec.call?.text ?? "diagram", inputs: inputs, operatorLabel: operatorLabel, output: rows[0],
            expected: firstExpected, mismatchMessage: messages.isEmpty ? nil : messages.joined(separator: "\n\n"),
            failed: spec.status == "failed", frames: frames)
        model.moreOutputs = Array(rows.dropFirst())
        model.mismatches = mismatches
        return model
    }

    /// Binds positional and labelled arguments to parameter indices and checks each
    /// expression's names.
    static func bind(
        _ call: DiagramSpec.Call, to definition: OperatorDefinition, inputNames: [String],
        error fail: (Int, Int, String) -> SpecError
    ) throws(SpecError) -> [Int: SpecExpression] {
        let error = fail
        var bound: [Int: SpecExpression] = [:]
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

    static func frameLength(_ diagram: String, _ parser: MarbleDiagram.Parser) -> Int {
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

    /// An input's subscription windows when they tell something the timeline does not: a
    /// resubscription (`retry`, `repeat`) or an unsubscription before the input ends
    /// (`take(until:)`); none for the usual single subscription that lasts.
    static func telling(_ logs: [SubscriptionLog], of timeline: TimelineModel, frame: Duration) -> [SubscriptionWindow] {
        let windows = logs.map { SubscriptionWindow(start: $0.subscribed / frame, end: $0.unsubscribed.map { $0 / frame }) }
        guard windows.count == 1, let only = windows.first else { return windows }
        let natural = timeline.events.first { if case .value = $0.kind { false } else { true } }?.frame
        // Unsubscribed before its own completion or error: taken early.
        if let end = only.end, end < (natural ?? .infinity) { return windows }
        return only.start > 0 ? windows : []
    }

    /// Inner timelines of a higher-order input, with the part after an early unsubscription
    /// marked to be drawn faded, and how many of their events the run delivered.
    static func innerTimelines(_ messages: [Recorded<Event<SpecItem>>], frame: Duration) -> [InnerTimelineModel] {
        var used: [String: Int] = [:]
        var result: [InnerTimelineModel] = []
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
            // Delivered as the run went, not compared by frame: an event at the frame its
            // subscriber left was delivered only if it fired first.
            let counts = stream.delivered?()
            var delivered = counts.map { n < $0.count ? $0[n] : 0 }
            if n < logs.count {
                start = logs[n].subscribed
                if let end = logs[n].unsubscribed {
                    let relative = (end - start) / frame
                    let natural = events.map(\.frame).max() ?? 0
                    if relative < natural { faded = relative }
                }
            } else {
                faded = 0
                delivered = 0
            }
            result.append(InnerTimelineModel(start: start / frame, events: events, fadedAfter: faded, delivered: delivered))
        }
        return result
    }
}
