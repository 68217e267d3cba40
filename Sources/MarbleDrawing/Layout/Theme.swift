/// A colour, 0…1 per channel.
public struct RGB: Equatable, Hashable, Sendable {
    /// Red, green and blue, 0…1.
    public var r: Double, g: Double, b: Double
    /// A colour from `0xRRGGBB`.
    public init(_ hex: UInt32) {
        r = Double((hex >> 16) & 0xFF) / 255
        g = Double((hex >> 8) & 0xFF) / 255
        b = Double(hex & 0xFF) / 255
    }
    /// A colour from channels in 0…1.
    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }
    /// `#rrggbb`
    public var hex: String {
        let c = [r, g, b].map { String(Int(($0 * 255).rounded()), radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return "#" + c.joined()
    }
}

/// What a colour is for; themes map roles to colours.
public enum ColorRole: Hashable, Sendable {
    /// Fixed roles: background, timelines, text, the operator box, marble outlines and labels, highlights and failures.
    case background, line, text, boxFill, boxStroke, marbleStroke, marbleText, highlight, failure
    /// The fill of the n-th distinct value, modulo ``Theme/paletteSize``.
    case marble(Int)

    /// Every role, for theme tables.
    public static var all: [ColorRole] {
        [.background, .line, .text, .boxFill, .boxStroke, .marbleStroke, .marbleText, .highlight, .failure]
            + (0..<Theme.paletteSize).map { .marble($0) }
    }

    /// A CSS custom property name.
    public var cssName: String {
        switch self {
        case .background: return "--marbles-background"
        case .line: return "--marbles-line"
        case .text: return "--marbles-text"
        case .boxFill: return "--marbles-box-fill"
        case .boxStroke: return "--marbles-box-stroke"
        case .marbleStroke: return "--marbles-marble-stroke"
        case .marbleText: return "--marbles-marble-text"
        case .highlight: return "--marbles-highlight"
        case .failure: return "--marbles-failure"
        case .marble(let i): return "--marbles-marble-\(i)"
        }
    }
}

/// Colours for every role.
public struct Theme: Sendable, Equatable {
    /// How many marble fills a theme has.
    public static let paletteSize = 8
    /// `light` or `dark`.
    public var name: String
    /// The colour of each role.
    public var colors: [ColorRole: RGB]

    /// The colour of `role` (magenta if the theme lacks it, so a gap is visible).
    public func color(_ role: ColorRole) -> RGB { colors[role] ?? RGB(0xFF00FF) }

    /// Dark lines on white.
    public static let light = Theme(
        name: "light",
        colors: [
            .background: RGB(0xFFFFFF), .line: RGB(0x2B2B2B), .text: RGB(0x1A1A1A), .boxFill: RGB(0xF3F4F8),
            .boxStroke: RGB(0x55596A), .marbleStroke: RGB(0x2B2B2B), .marbleText: RGB(0x111111), .highlight: RGB(0xFF5A5A),
            .failure: RGB(0xC62828),
            .marble(0): RGB(0xFFD54F), .marble(1): RGB(0x81D4FA), .marble(2): RGB(0xA5D6A7), .marble(3): RGB(0xF48FB1),
            .marble(4): RGB(0xCE93D8), .marble(5): RGB(0xFFAB91), .marble(6): RGB(0x80CBC4), .marble(7): RGB(0xE6EE9C),
        ])

    /// Light lines on a dark background.
    public static let dark = Theme(
        name: "dark",
        colors: [
            .background: RGB(0x1B1D23), .line: RGB(0xD8DAE0), .text: RGB(0xECEDF0), .boxFill: RGB(0x2A2D36),
            .boxStroke: RGB(0x9A9FB0), .marbleStroke: RGB(0xD8DAE0), .marbleText: RGB(0x111111), .highlight: RGB(0xFF6B6B),
            .failure: RGB(0xFF8A80),
            .marble(0): RGB(0xF2C94C), .marble(1): RGB(0x5DADE2), .marble(2): RGB(0x7DCEA0), .marble(3): RGB(0xF1948A),
            .marble(4): RGB(0xBB8FCE), .marble(5): RGB(0xF0B27A), .marble(6): RGB(0x76D7C4), .marble(7): RGB(0xD4E157),
        ])

    /// A theme whose every role has its own distinct colour, so that a renderer's output can
    /// be rewritten role by role (the SVG `auto` theme uses it).
    package static let sentinel: Theme = {
        var colors: [ColorRole: RGB] = [:]
        for (i, role) in ColorRole.all.enumerated() {
            colors[role] = RGB(r: Double(17 + i) / 255, g: Double(101 + i) / 255, b: Double(203 - i) / 255)
        }
        return Theme(name: "sentinel", colors: colors)
    }()

    /// `light`, `dark`.
    public static func named(_ name: String) -> Theme? {
        switch name {
        case "light": return .light
        case "dark": return .dark
        default: return nil
        }
    }
}

/// The palette slot for a label: stable across runs (FNV-1a), so a value keeps its colour.
package func paletteIndex(for label: String) -> Int {
    var hash: UInt32 = 2_166_136_261
    for byte in label.utf8 {
        hash ^= UInt32(byte)
        hash = hash &* 16_777_619
    }
    return Int(hash % UInt32(Theme.paletteSize))
}
