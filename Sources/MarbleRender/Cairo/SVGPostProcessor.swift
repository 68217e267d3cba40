import MarbleDrawing

/// Makes Cairo's SVG byte-stable and, for the `auto` theme, themable.
///
/// Cairo names the page group `surfaceN` from a counter shared by the whole process, so the
/// same diagram would come out differently depending on what was rendered before it; the id
/// is rewritten to `surface1`. With `autoTheme`, the drawing was made with
/// ``Theme/sentinel`` colours, each standing for one role; every `rgb(…)` that matches one
/// becomes `var(--marbles-…)`, and a `<style>` defines those properties for light readers and,
/// under `prefers-color-scheme: dark`, for dark ones.
enum SVGPostProcessor {
    static func process(_ bytes: [UInt8], autoTheme: Bool, title: String = "", summary: String = "") -> [UInt8] {
        var text = String(decoding: bytes, as: UTF8.self)
        text = renumberSurfaces(text)
        if autoTheme { text = themed(text) }
        text = described(text, title: title, summary: summary)
        return Array(text.utf8)
    }

    /// Adds `<title>` and `<desc>` as the root element's first children (text in Cairo's SVG is
    /// glyph outlines, which nobody can search or read aloud).
    static func described(_ text: String, title: String, summary: String) -> String {
        guard !title.isEmpty || !summary.isEmpty else { return text }
        return insertingAfterRootTag("\n<title>\(SVGText.escaped(title))</title>\n<desc>\(SVGText.escaped(summary))</desc>", into: text)
    }

    /// `insertion` placed right after the root `<svg …>` tag.
    static func insertingAfterRootTag(_ insertion: String, into text: String) -> String {
        guard let svgOpen = text.range(of: "<svg"), let tagEnd = text[svgOpen.upperBound...].firstIndex(of: ">") else { return text }
        let end = text.index(after: tagEnd)
        return String(text[..<end]) + insertion + String(text[end...])
    }

    static func renumberSurfaces(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = Substring(text)
        while let range = rest.range(of: "surface") {
            out += rest[..<range.upperBound]
            rest = rest[range.upperBound...]
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty {
                out += "1"
                rest = rest.dropFirst(digits.count)
            }
        }
        out += rest
        return out
    }

    static func themed(_ text: String) -> String {
        let sentinel = Theme.sentinel
        var out = ""
        var rest = Substring(text)
        while let range = rest.range(of: "rgb(") {
            out += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            guard let close = rest.firstIndex(of: ")") else {
                out += "rgb("
                continue
            }
            let body = rest[..<close]
            let parts = body.split(separator: ",").map { part -> Double? in
                let trimmed = part.filter { $0 != " " }
                if trimmed.hasSuffix("%") { return Double(trimmed.dropLast()).map { $0 / 100 } }
                return Double(trimmed).map { $0 / 255 }
            }
            if parts.count == 3, let r = parts[0], let g = parts[1], let b = parts[2],
                let role = ColorRole.all.first(where: { role in
                    let c = sentinel.color(role)
                    return abs(c.r - r) < 0.001 && abs(c.g - g) < 0.001 && abs(c.b - b) < 0.001
                })
            {
                out += "var(\(role.cssName))"
            } else {
                out += "rgb(" + body + ")"
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return insertingAfterRootTag("\n" + SVGText.colorSchemeStyle(), into: out)
    }
}
