extension MarbleDiagram {
    /// The marble language's symbols, in one table.
    ///
    /// | symbol | meaning | frames |
    /// | --- | --- | --- |
    /// | `-` | one frame of time | 1 |
    /// | space | alignment only | 0 |
    /// | any other character | a value: `values[character]`, else the character as a String | 1 |
    /// | `'text'` | a multi-character value (`\'` and `\\` escape) | 1 |
    /// | `\|` | completion | 1 |
    /// | `#` | error | 1 |
    /// | `(` … `)` | events at the frame of `(`; the group costs one frame per character, parentheses included | per character |
    /// | `[` … `]` | compact group: events at the frame of `[`; the whole group costs one frame | 1 |
    /// | `^` | hot and expected diagrams: frame 0; subscription diagrams: the subscription | 1 |
    /// | `!` | subscription diagrams only: the unsubscription | 0 |
    /// | `10ms`, `1.5s`, `2m` | time progression, at the start or after a space, followed by a space or the end | its duration |
    ///
    /// `[` … `]` is our extension (RxJS has no way to write same-frame events in consecutive frames);
    /// the printer uses it only where a `(` … `)` group would not fit before the next event.
    public enum Symbol: UInt8, CaseIterable, Sendable {
        /// `-`: one frame passes.
        case frame = 0x2D  // -
        /// ` `: ignored, for alignment.
        case space = 0x20
        /// `|`: completion.
        case complete = 0x7C  // |
        /// `#`: error.
        case error = 0x23  // #
        /// `(`: opens a group of events at one frame.
        case groupOpen = 0x28  // (
        /// `)`: closes a group.
        case groupClose = 0x29  // )
        /// `[`: opens a compact group (one column per event, all at one frame).
        case compactOpen = 0x5B  // [
        /// `]`: closes a compact group.
        case compactClose = 0x5D  // ]
        /// `^`: frame 0 of a hot observable, or a subscription.
        case zero = 0x5E  // ^
        /// `!`: an unsubscription.
        case unsubscribe = 0x21  // !
        /// `'`: quotes a value of several characters.
        case quote = 0x27  // '

        /// The symbol as text.
        public var character: Character { Character(Unicode.Scalar(rawValue)) }

        // Bit `b` is set when byte `b` is a symbol (`low`: below 0x40, `high`: 0x40 up to 0x7F):
        // one test instead of a switch. A test checks them against `allCases`.
        @usableFromInline static var lowSymbolMask: UInt64 { 0x0000_238B_0000_0000 }
        @usableFromInline static var highSymbolMask: UInt64 { 0x1000_0000_6800_0000 }

        /// Whether `byte` is one of the symbols.
        @inlinable @inline(__always)
        static func isSymbol(_ byte: UInt8) -> Bool {
            byte < 0x40 ? lowSymbolMask >> byte & 1 != 0 : byte < 0x80 && highSymbolMask >> (byte - 0x40) & 1 != 0
        }

        /// Whether a value written as `text` needs quotes to print as one value.
        static func needsQuotes(_ text: String) -> Bool {
            // One character of one ASCII byte or of non-ASCII scalars only: a cluster that starts
            // with ASCII (`e` + U+0301, `\r\n`) would be re-read differently without quotes.
            if text.utf8.count == 1, let byte = text.utf8.first {
                return isSymbol(byte) || byte < 0x20 || byte == 0x7F
            }
            guard text.count == 1, let byte = text.utf8.first else { return true }
            if byte < 0x80 && text.utf8.count > 1 { return true }
            if isSymbol(byte) { return true }
            return text.utf8.count == 1 && (byte < 0x20 || byte == 0x7F)
        }
    }
}
