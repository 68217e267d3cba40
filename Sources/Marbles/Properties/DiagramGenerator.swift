extension MarbleProperty {
    /// Draws marble diagrams for one case of a property (see
    /// ``MarbleProperty/check(count:seed:minFrames:maxFrames:frame:reporter:location:_:)``): hot and
    /// cold test observables with values from a set, groups, errors and completions at random
    /// frames, and subscription diagrams. Everything drawn is a function of the case's choices, so a
    /// case replays exactly, and shrinks.
    ///
    /// ```swift
    /// checkMarbles { s, draw in
    ///     let source = draw.cold("abc")
    ///     s.expect(source.map { $0 }.map { $0 + "!" }).toBeLike(source.map { $0 + "!" })
    /// }
    /// ```
    public final class Generator {
        private var choices: Choices
        /// How many frames a diagram may span at most (it grows with the case number).
        public let size: Int
        /// The scheduler of this case.
        public let scheduler: TestScheduler
        /// What was drawn, in order (`cold: -a-|`), for the failure message.
        public private(set) var drawn: [String] = []
        /// How many events the drawn diagrams hold.
        public private(set) var eventCount = 0
        /// How many frames the drawn diagrams span.
        public private(set) var frameCount = 0

        init(choices: Choices, size: Int, scheduler: TestScheduler) {
            self.choices = choices
            self.size = size
            self.scheduler = scheduler
        }

        /// The choices this case used, for a replay.
        var usedChoices: [UInt64] { choices.used }

        /// A cold observable of the labels' characters as strings (`"abc"`: values `a`, `b`, `c`).
        public func cold(_ labels: String = "abc", fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line)
            -> TestScheduler.ColdObservable<String>
        {
            cold(values: Self.identity(labels), fileID: fileID, filePath: filePath, line: line)
        }

        /// A cold observable of `values` (keys are one-character labels); `#` fails with `error`.
        public func cold<Value>(
            values: [String: Value], error: any Error = MarbleError(), fileID: StaticString = #fileID, filePath: StaticString = #filePath,
            line: Int = #line
        ) -> TestScheduler.ColdObservable<Value> {
            let text = diagram(labels: values.keys.sorted(), hot: false)
            drawn.append("cold: \(text)")
            return scheduler.cold(text, values: values, error: error, fileID: fileID, filePath: filePath, line: line)
        }

        /// A hot observable of the labels' characters as strings, with values before and after `^`.
        public func hot(_ labels: String = "abc", fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: Int = #line)
            -> TestScheduler.HotObservable<String>
        {
            hot(values: Self.identity(labels), fileID: fileID, filePath: filePath, line: line)
        }

        /// A hot observable of `values`; `#` fails with `error`.
        public func hot<Value>(
            values: [String: Value], error: any Error = MarbleError(), fileID: StaticString = #fileID, filePath: StaticString = #filePath,
            line: Int = #line
        ) -> TestScheduler.HotObservable<Value> {
            let text = diagram(labels: values.keys.sorted(), hot: true)
            drawn.append("hot: \(text)")
            return scheduler.hot(text, values: values, error: error, fileID: fileID, filePath: filePath, line: line)
        }

        /// Each label's character as its own value.
        private static func identity(_ labels: String) -> [String: String] {
            Dictionary(labels.map { (String($0), String($0)) }, uniquingKeysWith: { first, _ in first })
        }

        /// A subscription diagram for `expect(_:unsubscribe:)`: `^` at frame 0 and `!` within the
        /// case's size, or `nil` (never unsubscribe).
        public func unsubscription() -> String? {
            guard choices.below(3) != 0 else { return nil }
            let text = "^" + String(repeating: "-", count: choices.below(size)) + "!"
            drawn.append("unsubscribe: \(text)")
            return text
        }

        /// A subscription diagram with both points drawn: `^` within the case's size, then `!`
        /// within it again, or no `!` (never unsubscribe): `--^---!`.
        public func subscription() -> String {
            var text = String(repeating: "-", count: choices.below(size)) + "^"
            if choices.below(3) != 0 { text += String(repeating: "-", count: choices.below(size)) + "!" }
            drawn.append("subscription: \(text)")
            return text
        }

        /// Fails the case with `message` unless `condition` holds: for checks of recordings that no
        /// `toBe` expresses (call ``TestScheduler/flush(fileID:filePath:line:column:)`` first).
        public func require(
            _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, fileID: StaticString = #fileID,
            filePath: StaticString = #filePath, line: Int = #line, column: Int = #column
        ) {
            guard !condition() else { return }
            scheduler.report(message(), at: MarbleFailure.Location(fileID: fileID, filePath: filePath, line: line, column: column))
        }

        /// A whole number in `range`; shrinks toward its lower bound.
        public func int(in range: ClosedRange<Int>) -> Int {
            let value = range.lowerBound + choices.below(range.count)
            drawn.append("int: \(value)")
            return value
        }

        /// One of `elements`; shrinks toward the first.
        public func element<Element>(of elements: [Element]) -> Element {
            precondition(!elements.isEmpty, "element(of:) needs at least one element")
            return elements[choices.below(elements.count)]
        }

        /// A diagram over `labels`: frames that are empty, a value or a group, ended early (choice
        /// 0), then nothing (choice 0), completion or an error. Hot diagrams have a few frames before `^`.
        private func diagram(labels: [String], hot: Bool) -> String {
            let labels = labels.isEmpty ? ["a"] : labels
            var text = ""
            if hot {
                for _ in 0..<choices.below(3) { text += choices.below(2) == 0 ? "-" : label(labels) }
                text += "^"
            }
            var frames = 0
            // Ends early about once per `size` frames, so diagrams fill their size on average; the
            // choice 0 still ends it (shrinking shortens diagrams).
            let scale = max(1, size / 10)
            loop: while frames < size {
                switch choices.weighted([1, 5 * scale, 4 * scale, scale]) {
                case 0: break loop
                case 1:
                    text += "-"
                    frames += 1
                case 2:
                    text += label(labels)
                    frames += 1
                default:
                    let group = (0..<(2 + choices.below(2))).map { _ in label(labels) }
                    text += "(" + group.joined() + ")"
                    frames += group.count + 2
                }
            }
            frameCount += frames
            // No end for the choice 0: shrinking drops a `|` the failure does not need.
            switch choices.weighted([2, 3, 1]) {
            case 0: break
            case 1:
                text += "|"
                eventCount += 1
            default:
                text += "#"
                eventCount += 1
            }
            return text
        }

        private func label(_ labels: [String]) -> String {
            eventCount += 1
            let key = labels[choices.below(labels.count)]
            return key.count == 1 ? key : "'\(key)'"
        }
    }
}
