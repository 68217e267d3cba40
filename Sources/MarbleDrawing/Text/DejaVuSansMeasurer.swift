/// Measures text as the renderers draw it in DejaVu Sans, the default font, from widths shipped
/// as data: no font file, no Cairo, the same answer on every machine.
///
/// Latin, Greek, Cyrillic, punctuation, arrows, mathematical operators and box drawing come
/// from the table (as Pango measures them, kerning left out: a label with a pair such as `AV` measures
/// up to 7% wider than drawn, which only widens a marble). Other characters are estimated as the
/// fallback fonts draw them: one em for CJK and Hangul, 1.25 em for an emoji, nothing for a
/// combining mark, and DejaVu's average of 0.62 em for the rest.
public struct DejaVuSansMeasurer: TextMeasurer, Sendable {
    /// Font units per em in ``blocks``.
    static let unitsPerEm = 2048.0

    /// Creates the measurer.
    public init() {}

    /// The advance width of `text` at `size` points.
    public func width(of text: String, size: Double) -> Double {
        text.reduce(0) { $0 + Self.ems(of: $1) } * size
    }

    /// One character's width in ems.
    static func ems(of character: Character) -> Double {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // An emoji sequence (a flag, a family, a skin tone) is one glyph.
        if scalars.count > 1, first.properties.isEmoji, first.value > 0xFF { return emojiWidth }
        return scalars.reduce(0) { $0 + ems(of: $1) }
    }

    static func ems(of scalar: Unicode.Scalar) -> Double {
        let value = scalar.value
        for block in blocks where value >= block.first && value < block.first + UInt32(block.widths.count) {
            let units = block.widths[Int(value - block.first)]
            if units != .max { return Double(units) / unitsPerEm }
        }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return emojiWidth }
        if isWide(value) { return 1 }
        return 0.62
    }

    /// Noto Color Emoji's advance at DejaVu Sans' size, as Pango draws it.
    static let emojiWidth = 1.245

    /// East Asian wide characters: CJK, kana, Hangul, full-width forms.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
            0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
