/// A failing `toBe` in record mode: the diagram as written and the diagram that would pass.
///
/// MarblesTesting's record mode (`MARBLES_RECORD=1`) rewrites the string literal at
/// ``location`` from ``written`` to ``recorded``.
package struct DiagramRecording: Sendable, Equatable {
    /// The `toBe` call; its column is the call's opening parenthesis.
    public var location: MarbleFailure.Location
    /// The diagram the test passed to `toBe`.
    public var written: String
    /// The actual timeline as a diagram, with the same `values:` keys and, for values no key
    /// names, the keys in ``newValues``.
    public var recorded: String
    /// Keys the recorded diagram uses that the test's `values:` literal lacks, each with its
    /// value as a Swift literal (`"z"`, `20`): record mode adds them to that literal.
    public var newValues: [NewValue]

    /// A key to add to `values:`.
    public struct NewValue: Sendable, Equatable {
        /// The key, one character.
        public var key: String
        /// The value as Swift source (`20`, `"swift"`, `true`).
        public var literal: String
    }

    /// Creates a recording.
    public init(location: MarbleFailure.Location, written: String, recorded: String, newValues: [NewValue] = []) {
        self.location = location
        self.written = written
        self.recorded = recorded
        self.newValues = newValues
    }
}

extension DiagramRecording {
    /// Keys for the actual values that none of `keys` names, with each value (`Value`-typed) and
    /// its Swift literal; `nil` when such a value has no literal (a struct): a person must name
    /// it. Keys are letters (then digits) that `keys` does not use, in the order values appear.
    static func newKeys<Value>(
        for actual: [Recorded<Event<RecordedValue>>], keys: [(key: String, value: RecordedValue)], as: Value.Type
    ) -> [(key: String, value: Value, literal: String)]? {
        var taken = Set(keys.map(\.key))
        var free = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").map(String.init).makeIterator()
        var added: [(key: String, value: Value, literal: String)] = []
        for recorded in actual {
            guard case .next(.plain(let plain)) = recorded.value else { continue }
            let candidate = RecordedValue.plain(plain)
            if keys.contains(where: { $0.value.matches(candidate) }) { continue }
            if added.contains(where: { RecordedValue.plain($0.value).matches(candidate) }) { continue }
            guard let value = plain as? Value, let literal = swiftLiteral(value) else { return nil }
            while let key = free.next() {
                guard !taken.contains(key) else { continue }
                taken.insert(key)
                added.append((key, value, literal))
                break
            }
        }
        return added
    }

    /// `value` as Swift source, for the types a `values:` literal holds without a constructor.
    static func swiftLiteral(_ value: Any) -> String? {
        switch value {
        case let text as String: return StringLiteral.quoted(text)
        case let character as Character: return StringLiteral.quoted(String(character))
        case let flag as Bool: return flag ? "true" : "false"
        case let number as any BinaryInteger: return "\(number)"
        case let number as Double: return number.isFinite ? "\(number)" : nil
        case let number as Float: return number.isFinite ? "\(number)" : nil
        default: return nil
        }
    }
}

/// Swift string literals, as record mode writes them.
package enum StringLiteral {
    /// `text` as a Swift string literal.
    package static func quoted(_ text: String) -> String {
        "\"" + escaping(text, ["\\": "\\\\", "\"": "\\\"", "\n": "\\n", "\t": "\\t", "\r": "\\r"]) + "\""
    }

    /// `text` with each character that `replacements` names replaced (a literal's or an XML
    /// document's escapes).
    package static func escaping(_ text: String, _ replacements: [Character: String]) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            if let replacement = replacements[character] { result += replacement } else { result.append(character) }
        }
        return result
    }
}

/// What a failing `toBe` hands record mode: the diagram that would pass, or why none can be
/// written, and how to check that it reads back as the recording. The comparison builds it
/// without parsing; record mode (MarblesTesting, behind ``TestScheduler/Listener``) checks and
/// rewrites.
package struct RecordingProposal {
    /// The rewrite: the written diagram, the candidate and the keys to add.
    package var recording: DiagramRecording
    /// Why no diagram can be written (a value with no Swift literal, several subscriptions
    /// for one literal); `nil` when ``recording`` is one.
    package var refusal: String?
    /// Why the candidate would not pass as written (it parses it the way the `toBe` parsed its
    /// own diagram); `nil` when it would.
    package var readBack: () -> String?

    /// A proposal; `readBack` by default finds nothing wrong.
    package init(recording: DiagramRecording, refusal: String? = nil, readBack: @escaping () -> String? = { nil }) {
        self.recording = recording
        self.refusal = refusal
        self.readBack = readBack
    }
}

extension TestScheduler {
    /// Reports a failed expectation, with the line record mode adds (the rewrite, or why
    /// not) when it is on and the expectation proposed a diagram.
    func reportFailure(_ message: String, proposal: @autoclosure () -> RecordingProposal?, at location: MarbleFailure.Location) {
        let note = listener.recordDiagram.flatMap { record in proposal().map(record) }
        report(message + (note.map { "\n" + $0 } ?? ""), at: location)
    }

    /// Hands a checked expectation's outcome to the listener: to `expectationChecked` always,
    /// to `expectationFailed` when it failed. The outcome is made only when one of them listens.
    func announce(passed: Bool, _ outcome: () -> ExpectationOutcome) {
        let failed = passed ? nil : listener.expectationFailed
        guard listener.expectationChecked != nil || failed != nil else { return }
        let made = outcome()
        listener.expectationChecked?(made)
        failed?(made)
    }
}
