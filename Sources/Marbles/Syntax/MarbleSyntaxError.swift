extension MarbleDiagram {
    /// A malformed marble diagram: what is wrong, and where, with a caret under the spot.
    ///
    /// ```
    /// marble syntax error at line 1, column 3: unclosed group: '(' has no matching ')'
    ///   --(ab-c
    ///     ^
    /// ```
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What went wrong.
        public enum Kind: Equatable, Sendable {
            /// A `(` or `[` that is never closed.
            case unclosedGroup
            /// A `)` or `]` with no group open.
            case unopenedGroup
            /// A group inside a group.
            case nestedGroup
            /// `()` or `[]`.
            case emptyGroup
            /// `^` in a cold diagram.
            case zeroInColdDiagram
            /// A second `^` in a hot or expected diagram.
            case secondZero
            /// `^` inside a group.
            case zeroInGroup
            /// `!` outside a subscription diagram.
            case unsubscribeOutsideSubscriptionDiagram
            /// A second `!`.
            case secondUnsubscribe
            /// A second `^` in a subscription diagram.
            case secondSubscribe
            /// `!` before `^` in a subscription diagram.
            case unsubscribeBeforeSubscribe
            /// An event symbol or value in a subscription diagram.
            case unexpectedSymbolInSubscriptionDiagram(Character)
            /// A value key missing from a non-empty `values` dictionary.
            case missingValue(String)
            /// A `'` that is never closed.
            case unterminatedQuote
            /// `''`.
            case emptyQuote
            /// An event after `|` or `#` in an expected diagram.
            case eventAfterTermination
            /// A token that starts like a time progression and is not one (`10xs`).
            case invalidTimeProgression(String)
            /// `time(_:)` of a diagram without `|`.
            case noCompletion
            /// A time progression or `-` inside `[...]`.
            case timeInCompactGroup
            /// One time progression longer than 64-bit nanoseconds hold.
            case timeProgressionTooLong(String)
            /// The diagram's time, added up, passes a quarter of 64-bit nanoseconds (about 73 years).
            case timeOverflow
        }

        /// What went wrong.
        public let kind: Kind
        /// The whole diagram.
        public let diagram: String
        /// 1-based line of the problem within `diagram`.
        public let line: Int
        /// 1-based column, counted in characters.
        public let column: Int

        /// Creates an error at a line and column; a `line` of 1 with a `column` counted across
        /// a multi-line diagram is moved to the line that column falls on.
        public init(_ kind: Kind, diagram: String, line: Int = 1, column: Int) {
            self.kind = kind
            self.diagram = diagram
            if line == 1 {
                (self.line, self.column) = Self.locate(column, in: diagram)
            } else {
                self.line = line
                self.column = column
            }
        }

        /// The line and column of the `column`-th character of `diagram`, counting line breaks
        /// (`\n`, `\r\n`) as characters of the line they end.
        static func locate(_ column: Int, in diagram: String) -> (line: Int, column: Int) {
            var line = 1
            var lineStart = 0
            for (offset, character) in diagram.enumerated() {
                if offset + 1 >= column { break }
                if character.isNewline {
                    line += 1
                    lineStart = offset + 1
                }
            }
            return (line, column - lineStart)
        }

        /// The problem in words, without the location.
        public var reason: String {
            switch kind {
            case .unclosedGroup: return "unclosed group: '(' has no matching ')'"
            case .unopenedGroup: return "')' or ']' without an opening '(' or '['"
            case .nestedGroup: return "groups cannot be nested"
            case .emptyGroup: return "empty group: a group needs at least one event"
            case .zeroInColdDiagram: return "'^' marks frame 0 of hot and expected diagrams; a cold diagram starts at its subscription"
            case .secondZero: return "a second '^': only one frame 0 (or subscription point) is allowed"
            case .zeroInGroup: return "'^' cannot stand inside a group"
            case .unsubscribeOutsideSubscriptionDiagram: return "'!' (unsubscription) belongs in subscription diagrams only"
            case .secondUnsubscribe: return "a second '!': only one unsubscription point is allowed"
            case .secondSubscribe: return "a second '^': only one subscription point is allowed"
            case .unsubscribeBeforeSubscribe: return "'!' before '^': the unsubscription cannot come before the subscription"
            case .unexpectedSymbolInSubscriptionDiagram(let c):
                return "'\(c)' in a subscription diagram, which allows only '-', ' ', '^', '!', groups and time progressions"
            case .missingValue(let key): return "no value for '\(key)' in the values dictionary"
            case .unterminatedQuote: return "unterminated quoted value: the closing ' is missing"
            case .emptyQuote: return "empty quoted value ''"
            case .eventAfterTermination: return "event after '|' or '#': nothing can follow the end of a stream"
            case .invalidTimeProgression(let text): return "'\(text)' is not a time progression (write e.g. 10ms, 1.5s, 2m)"
            case .noCompletion: return "the diagram needs a '|' to measure a time"
            case .timeProgressionTooLong(let text): return "'\(text)' is too long a time progression"
            case .timeOverflow: return "the diagram's time adds up to more than the test scheduler holds (about 73 years of virtual time)"
            case .timeInCompactGroup: return "time inside '[...]': a compact group holds events only and lasts one frame"
            }
        }

        /// `marble syntax error at line L, column C: reason`, the line, and a caret under the spot.
        public var description: String {
            let lines = diagram.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            let excerpt = CaretExcerpt(line: line - 1 < lines.count ? String(lines[line - 1]) : diagram, column: column)
            return "marble syntax error at line \(line), column \(column): \(reason)\n  \(excerpt.text)\n  \(excerpt.caret)"
        }
    }
}
