#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a ``DisplayList`` as SVG text, in pure Swift: no Cairo, no font file.
///
/// What MarblesTesting attaches to a failing test. Labels are `<text>` in DejaVu Sans (Verdana,
/// of the same widths, where it is missing), placed as the Cairo renderer places them, so the
/// file is searchable and small. `marblegen` draws its SVG through Cairo instead, with glyph
/// outlines, which look the same where the reader has no such font.
///
/// ```swift
/// let list = DiagramLayout(measurer: DejaVuSansMeasurer()).layout(model)
/// let svg = SVGWriter(theme: .light, followsColorScheme: true).svg(list)
/// ```
public struct SVGWriter: Sendable {
    /// The colours, when the file does not follow the reader's colour scheme.
    public var theme: Theme
    /// Whether the file follows the reader's light or dark preference (CSS custom properties
    /// with a `prefers-color-scheme: dark` block) rather than `theme`.
    public var followsColorScheme: Bool
    /// The `font-family` of every label.
    public var fontFamily = "'DejaVu Sans', Verdana, sans-serif"

    /// A writer in `theme`, or following the reader's colour scheme.
    public init(theme: Theme = .light, followsColorScheme: Bool = false) {
        self.theme = theme
        self.followsColorScheme = followsColorScheme
    }

    /// Where a centred label's baseline is, below the centre, in ems: DejaVu Sans' ascent less
    /// its descent, halved (Pango's placement and Cairo's agree on it).
    static let centeredBaseline = (0.928 - 0.236) / 2

    /// The SVG document of `list`.
    public func svg(_ list: DisplayList) -> String {
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(number(list.width))\" height=\"\(number(list.height))\""
        out += " viewBox=\"0 0 \(number(list.width)) \(number(list.height))\" role=\"img\">\n"
        out += "<title>\(SVGText.escaped(list.title))</title>\n<desc>\(SVGText.escaped(list.summary))</desc>\n"
        if followsColorScheme { out += SVGText.colorSchemeStyle() }
        out += "<g font-family=\"\(fontFamily)\">\n"
        for item in list.items { element(item, into: &out) }
        out += "</g>\n</svg>\n"
        return out
    }

    private func color(_ role: ColorRole) -> String {
        followsColorScheme ? "var(\(role.cssName))" : theme.color(role).hex
    }

    private func opacity(_ value: Double) -> String {
        value >= 1 ? "" : " opacity=\"\(number(value))\""
    }

    private func element(_ item: DrawItem, into out: inout String) {
        switch item {
        case .line(let from, let to, let role, let width, let dashed, let alpha):
            out += "<line x1=\"\(number(from.x))\" y1=\"\(number(from.y))\" x2=\"\(number(to.x))\" y2=\"\(number(to.y))\""
            out +=
                " stroke=\"\(color(role))\" stroke-width=\"\(number(width))\"\(dashed ? " stroke-dasharray=\"5 4\"" : "")\(opacity(alpha))/>\n"
        case .arrowHead(let tip, let from, let size, let role, let alpha):
            let angle = atan2(tip.y - from.y, tip.x - from.x)
            let points = [
                tip, Point(tip.x - size * cos(angle - 0.45), tip.y - size * sin(angle - 0.45)),
                Point(tip.x - size * cos(angle + 0.45), tip.y - size * sin(angle + 0.45)),
            ]
            let text = points.map { "\(number($0.x)),\(number($0.y))" }.joined(separator: " ")
            out += "<polygon points=\"\(text)\" fill=\"\(color(role))\"\(opacity(alpha))/>\n"
        case .marble(let center, let width, let radius, let fill, let stroke, let label, let fontSize, let alpha):
            let half = max(width / 2 - radius, 0)
            let paint = "fill=\"\(color(fill))\" stroke=\"\(color(stroke))\" stroke-width=\"2\"\(opacity(alpha))"
            if half == 0 {
                out += "<circle cx=\"\(number(center.x))\" cy=\"\(number(center.y))\" r=\"\(number(radius))\" \(paint)/>\n"
            } else {
                out += "<rect x=\"\(number(center.x - half - radius))\" y=\"\(number(center.y - radius))\""
                out += " width=\"\(number(2 * (half + radius)))\" height=\"\(number(2 * radius))\" rx=\"\(number(radius))\" \(paint)/>\n"
            }
            // The label stays opaque on a ghost's faded fill, as Cairo draws it.
            text(
                label, at: Point(center.x, center.y + Self.centeredBaseline * fontSize), size: fontSize, role: .marbleText,
                anchor: .center, bold: false, into: &out)
        case .bar(let center, let halfHeight, let role, let alpha):
            out += "<line x1=\"\(number(center.x))\" y1=\"\(number(center.y - halfHeight))\" x2=\"\(number(center.x))\""
            out += " y2=\"\(number(center.y + halfHeight))\" stroke=\"\(color(role))\" stroke-width=\"2.5\"\(opacity(alpha))/>\n"
        case .cross(let center, let size, let role, let alpha):
            let (x, y, s) = (center.x, center.y, size)
            out += "<path d=\"M\(number(x - s)) \(number(y - s))L\(number(x + s)) \(number(y + s))M\(number(x + s)) \(number(y - s))"
            out += "L\(number(x - s)) \(number(y + s))\" stroke=\"\(color(role))\" stroke-width=\"3\" stroke-linecap=\"round\""
            out += " fill=\"none\"\(opacity(alpha))/>\n"
        case .rect(let origin, let width, let height, let fill, let stroke, let alpha):
            out += "<rect x=\"\(number(origin.x))\" y=\"\(number(origin.y))\" width=\"\(number(width))\" height=\"\(number(height))\""
            out +=
                " fill=\"\(color(fill))\"" + (stroke.map { " stroke=\"\(color($0))\" stroke-width=\"1.5\"" } ?? "")
                + "\(opacity(alpha))/>\n"
        case .text(let label, let at, let size, let role, let anchor, let bold):
            text(label, at: at, size: size, role: role, anchor: anchor, bold: bold, into: &out)
        }
    }

    private func text(
        _ label: String, at: Point, size: Double, role: ColorRole, anchor: TextAnchor, bold: Bool, into out: inout String
    ) {
        out += "<text x=\"\(number(at.x))\" y=\"\(number(at.y))\" font-size=\"\(number(size))\" fill=\"\(color(role))\""
        if anchor == .center { out += " text-anchor=\"middle\"" }
        if bold { out += " font-weight=\"bold\"" }
        out += " xml:space=\"preserve\">\(SVGText.escaped(label))</text>\n"
    }

    /// Two decimals at most, no trailing zeros: the same list gives the same bytes.
    func number(_ value: Double) -> String {
        // A layout never makes one; should it, the file stays well formed rather than trap.
        guard value.isFinite else { return "0" }
        let hundredths = Int((value * 100).rounded())
        let sign = hundredths < 0 ? "-" : ""
        let whole = abs(hundredths) / 100
        let fraction = abs(hundredths) % 100
        if fraction == 0 { return "\(sign)\(whole)" }
        let digits = fraction % 10 == 0 ? "\(fraction / 10)" : (fraction < 10 ? "0\(fraction)" : "\(fraction)")
        return "\(sign)\(whole).\(digits)"
    }
}

/// What both SVG writers (this one and the Cairo post-processor) need: XML escaping and the
/// colour-scheme style block.
package enum SVGText {
    /// `text` safe inside an element or an attribute.
    package static func escaped(_ text: String) -> String {
        StringLiteral.escaping(text, ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"])
    }

    /// Every role's custom property for light readers and, under `prefers-color-scheme: dark`,
    /// for dark ones.
    package static func colorSchemeStyle() -> String {
        func block(_ theme: Theme) -> String {
            ColorRole.all.map { "\($0.cssName):\(theme.color($0).hex);" }.joined()
        }
        return "<style>svg{\(block(.light))}@media (prefers-color-scheme: dark){svg{\(block(.dark))}}</style>\n"
    }
}
