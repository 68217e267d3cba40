/// A malformed marble diagram: what is wrong, and where, with a caret under the spot.
///
/// ```
/// marble syntax error at column 4: unclosed group: '(' has no matching ')'
///   --(ab-c
///     ^
/// ```
public struct MarbleSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Equatable, Sendable {
        case unclosedGroup
        case unopenedGroup
        case nestedGroup
        case emptyGroup
        case zeroInColdDiagram
        case secondZero
        case zeroInGroup
        case unsubscribeOutsideSubscriptionDiagram
        case secondUnsubscribe
        case secondSubscribe
        case unsubscribeBeforeSubscribe
        case unexpectedSymbolInSubscriptionDiagram(Character)
        case missingValue(String)
        case unterminatedQuote
        case emptyQuote
        case eventAfterTermination
        case invalidTimeProgression(String)
        case noCompletion
        case timeInCompactGroup
        case timeProgressionTooLong(String)
    }

    /// What went wrong.
    public let kind: Kind
    /// The whole diagram.
    public let diagram: String
    /// 1-based line of the problem within `diagram`.
    public let line: Int
    /// 1-based column, counted in characters.
    public let column: Int

    /// Creates an error at a column of a one-line diagram.
    public init(_ kind: Kind, diagram: String, line: Int = 1, column: Int) {
        self.kind = kind
        self.diagram = diagram
        self.line = line
        self.column = column
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
        case .timeInCompactGroup: return "time inside '[...]': a compact group holds events only and lasts one frame"
        }
    }

    public var description: String {
        let lines = diagram.split(separator: "\n", omittingEmptySubsequences: false)
        let text = line - 1 < lines.count ? String(lines[line - 1]) : diagram
        let caret = String(repeating: " ", count: max(column - 1, 0)) + "^"
        return "marble syntax error at line \(line), column \(column): \(reason)\n  \(text)\n  \(caret)"
    }
}
