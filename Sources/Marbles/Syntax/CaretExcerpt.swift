/// A line of input shown under an error message with a caret under the spot, cut to a bounded
/// width around the caret (a line can be millions of characters long: a diagram of `-` with a
/// typo at the end), with `…` where it was cut.
package struct CaretExcerpt: Equatable {
    /// The shown part of the line.
    package var text: String
    /// Spaces then `^` under the spot in `text`.
    package var caret: String

    /// How many characters of the line are shown at most, caret's column included.
    package static let width = 80

    /// The excerpt of `line` around the 1-based `column`.
    package init(line: String, column: Int, width: Int = CaretExcerpt.width) {
        let characters = Array(line)
        let spot = max(column - 1, 0)
        guard characters.count > width else {
            text = line
            caret = String(repeating: " ", count: spot) + "^"
            return
        }
        // Room on both sides of the spot; the caret may stand one past the end.
        let start = max(0, min(spot - width / 2, characters.count - width))
        let end = min(characters.count, start + width)
        let left = start > 0 ? "…" : ""
        text = left + String(characters[start..<end]) + (end < characters.count ? "…" : "")
        caret = String(repeating: " ", count: spot - start + left.count) + "^"
    }
}
