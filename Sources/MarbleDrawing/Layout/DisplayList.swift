/// A point in diagram pixels (before any scale).
public struct Point: Equatable, Sendable {
    /// Coordinates in points, origin at the top left.
    public var x: Double, y: Double
    /// A point at `x`, `y`.
    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }
}

/// One drawing instruction. Layout produces them; a renderer draws them in order.
public enum DrawItem: Equatable, Sendable {
    /// A straight stroke.
    case line(from: Point, to: Point, color: ColorRole, width: Double, dashed: Bool, opacity: Double)
    /// A filled triangle pointing right (or along the line ending at `tip`).
    case arrowHead(tip: Point, from: Point, size: Double, color: ColorRole, opacity: Double)
    /// A marble: a circle, or a capsule when `width > 2 * radius`, with a centred label.
    case marble(
        center: Point, width: Double, radius: Double, fill: ColorRole, stroke: ColorRole, label: String, fontSize: Double, opacity: Double)
    /// A completion bar.
    case bar(center: Point, halfHeight: Double, color: ColorRole, opacity: Double)
    /// An error cross.
    case cross(center: Point, size: Double, color: ColorRole, opacity: Double)
    /// A rectangle.
    case rect(origin: Point, width: Double, height: Double, fill: ColorRole, stroke: ColorRole?, opacity: Double)
    /// Text; `anchor` is where `at` is on the text's baseline box.
    case text(String, at: Point, size: Double, color: ColorRole, anchor: TextAnchor, bold: Bool)
}

/// Horizontal placement of text.
public enum TextAnchor: Sendable, Equatable {
    /// The position is the text's left edge, or its centre.
    case left, center
}

/// A laid-out diagram.
public struct DisplayList: Equatable, Sendable {
    /// The drawing's width in points.
    public var width: Double
    /// The drawing's height in points.
    public var height: Double
    /// What to draw, back to front.
    public var items: [DrawItem]
    /// The diagram's title, for an SVG's `<title>`.
    public var title: String = ""
    /// The diagram in words (each timeline's events and frames), for an SVG's `<desc>`: what a
    /// screen reader reads and a search finds.
    public var summary: String = ""

    /// A display list of `items` on a `width` × `height` canvas.
    public init(width: Double, height: Double, items: [DrawItem], title: String = "", summary: String = "") {
        self.width = width
        self.height = height
        self.items = items
        self.title = title
        self.summary = summary
    }
}

/// Measures text for layout: the advance width of `text` at `size` pixels.
public protocol TextMeasurer {
    func width(of text: String, size: Double) -> Double
}

/// An estimate of DejaVu Sans widths, for layout without a font (tests, quick previews).
public struct ApproximateTextMeasurer: TextMeasurer {
    /// Creates the measurer.
    public init() {}
    /// An estimate from average glyph widths; for layout tests that must not depend on fonts.
    public func width(of text: String, size: Double) -> Double {
        text.reduce(0) { total, c in
            let factor: Double
            switch c {
            case "i", "l", "j", "!", "|", ".", ",", ":", ";", "'", "(", ")", "[", "]", " ": factor = 0.33
            case "m", "w", "M", "W": factor = 0.95
            case _ where c.isUppercase: factor = 0.72
            default: factor = 0.62
            }
            return total + factor * size
        }
    }
}
