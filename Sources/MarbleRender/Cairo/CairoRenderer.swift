internal import CCairo

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An output format.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// The file formats Cairo writes.
    case png, svg, pdf
}

/// What went wrong while drawing.
public enum RenderError: Error, Equatable, CustomStringConvertible {
    /// Cairo reported a failure.
    case cairo(String)
    /// No usable font: fontconfig resolved the family to something else.
    case noFont(requested: String, resolved: String?)

    public var description: String {
        switch self {
        case .cairo(let status): return "cairo: \(status)"
        case .noFont(let requested, let resolved):
            return "no usable font: fontconfig resolves '\(requested)' to \(resolved.map { "'\($0)'" } ?? "nothing")"
                + "; install it (Debian: apt-get install fonts-dejavu-core) or choose another with --font"
        }
    }
}

/// Draws display lists through Cairo. Each call makes its own surface, so calls may run in
/// parallel.
public struct CairoRenderer: Sendable {
    /// The font family for all text; with Pango, characters it lacks come from
    /// WenQuanYi Micro Hei (CJK), Noto Color Emoji, then whatever fontconfig finds.
    public var fontFamily: String
    /// How text is shaped: Pango with font fallback (default) or Cairo's one-font toy API.
    public var textEngine: TextEngine

    /// Creates a renderer using `fontFamily` (DejaVu Sans by default).
    public init(fontFamily: String = "DejaVu Sans", textEngine: TextEngine = .pango) {
        self.fontFamily = fontFamily
        self.textEngine = textEngine
    }

    /// Checks with fontconfig that the family resolves to itself rather than a substitute.
    public func verifyFont() throws(RenderError) {
        guard let config = FcInitLoadConfigAndFonts() else { throw .noFont(requested: fontFamily, resolved: nil) }
        defer { FcConfigDestroy(config) }
        guard let pattern = fontFamily.withCString({ FcNameParse(UnsafeRawPointer($0).assumingMemoryBound(to: FcChar8.self)) }) else {
            throw .noFont(requested: fontFamily, resolved: nil)
        }
        defer { FcPatternDestroy(pattern) }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let match = FcFontMatch(config, pattern, &result) else { throw .noFont(requested: fontFamily, resolved: nil) }
        defer { FcPatternDestroy(match) }
        var family: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(match, "family", 0, &family) == FcResultMatch, let family else {
            throw .noFont(requested: fontFamily, resolved: nil)
        }
        let resolved = String(cString: UnsafeRawPointer(family).assumingMemoryBound(to: CChar.self))
        if resolved.lowercased() != fontFamily.lowercased() { throw .noFont(requested: fontFamily, resolved: resolved) }
    }

    /// The widest or tallest PNG Cairo can make, in pixels.
    public static let maxPNGPixels = 32_767.0

    /// Renders `list` in `format`. PNG is scaled by `scale`, less for a diagram so long that
    /// the image would pass ``maxPNGPixels``; SVG and PDF are in pixel units.
    /// `autoTheme` (SVG only) makes the file follow the reader's light/dark preference.
    public func render(_ list: DisplayList, format: OutputFormat, theme: Theme, scale: Double = 2, autoTheme: Bool = false)
        throws(RenderError) -> [UInt8]
    {
        // One pixel of room for rounding up.
        let scale = min(scale, (Self.maxPNGPixels - 1) / max(list.width, list.height, 1))
        let sink = ByteSink()
        let drawTheme = autoTheme && format == .svg ? Theme.sentinel : theme
        let surface: OpaquePointer
        let opaqueSink = Unmanaged.passUnretained(sink).toOpaque()
        switch format {
        case .png:
            surface = cairo_image_surface_create(
                CAIRO_FORMAT_ARGB32, Int32((list.width * scale).rounded(.up)), Int32((list.height * scale).rounded(.up)))
        case .svg:
            surface = cairo_svg_surface_create_for_stream(writeToSink, opaqueSink, list.width, list.height)
            cairo_svg_surface_restrict_to_version(surface, CAIRO_SVG_VERSION_1_1)
            cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        case .pdf:
            surface = cairo_pdf_surface_create_for_stream(writeToSink, opaqueSink, list.width, list.height)
            // Pinned dates: the same spec gives the same bytes.
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, "2000-01-01T00:00:00")
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, "2000-01-01T00:00:00")
        }
        defer { cairo_surface_destroy(surface) }
        try check(cairo_surface_status(surface))
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        if format == .png { cairo_scale(cr, scale, scale) }
        pinFontOptions(cr)
        cairo_select_font_face(cr, fontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        for item in list.items { draw(item, cr, drawTheme) }
        try check(cairo_status(cr))
        if format == .pdf { cairo_show_page(cr) }
        if format == .png {
            cairo_surface_flush(surface)
            try check(withExtendedLifetime(sink) { cairo_surface_write_to_png_stream(surface, writeToSink, opaqueSink) })
        } else {
            withExtendedLifetime(sink) { cairo_surface_finish(surface) }
            try check(cairo_surface_status(surface))
        }
        if format == .svg { return SVGPostProcessor.process(sink.bytes, autoTheme: autoTheme, title: list.title, summary: list.summary) }
        return sink.bytes
    }

    private func check(_ status: cairo_status_t) throws(RenderError) {
        if status != CAIRO_STATUS_SUCCESS { throw .cairo(String(cString: cairo_status_to_string(status))) }
    }

    private func pinFontOptions(_ cr: OpaquePointer) {
        let options = cairo_font_options_create()
        defer { cairo_font_options_destroy(options) }
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_set_font_options(cr, options)
    }

    private func setColor(_ cr: OpaquePointer, _ theme: Theme, _ role: ColorRole, _ alpha: Double) {
        let c = theme.color(role)
        if alpha >= 1 { cairo_set_source_rgb(cr, c.r, c.g, c.b) } else { cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha) }
    }

    private func strokeLine(_ cr: OpaquePointer, from: Point, to: Point, width: Double, dashed: Bool) {
        cairo_set_line_width(cr, width)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        if dashed {
            let dashes: [Double] = [5, 4]
            cairo_set_dash(cr, dashes, 2, 0)
        }
        cairo_move_to(cr, from.x, from.y)
        cairo_line_to(cr, to.x, to.y)
        cairo_stroke(cr)
        if dashed { cairo_set_dash(cr, nil, 0, 0) }
    }

    /// A circle, or a pill as wide as `width` for long labels.
    private func pillPath(_ cr: OpaquePointer, center: Point, width: Double, radius: Double) {
        let half = max(width / 2 - radius, 0)
        cairo_new_path(cr)
        cairo_arc(cr, center.x + half, center.y, radius, -Double.pi / 2, Double.pi / 2)
        cairo_arc(cr, center.x - half, center.y, radius, Double.pi / 2, 3 * Double.pi / 2)
        cairo_close_path(cr)
    }

    private func draw(_ item: DrawItem, _ cr: OpaquePointer, _ theme: Theme) {
        switch item {
        case .line(let from, let to, let color, let width, let dashed, let opacity):
            setColor(cr, theme, color, opacity)
            strokeLine(cr, from: from, to: to, width: width, dashed: dashed)
        case .arrowHead(let tip, let from, let size, let color, let opacity):
            let angle = atan2(tip.y - from.y, tip.x - from.x)
            setColor(cr, theme, color, opacity)
            cairo_move_to(cr, tip.x, tip.y)
            cairo_line_to(cr, tip.x - size * cos(angle - 0.45), tip.y - size * sin(angle - 0.45))
            cairo_line_to(cr, tip.x - size * cos(angle + 0.45), tip.y - size * sin(angle + 0.45))
            cairo_close_path(cr)
            cairo_fill(cr)
        case .marble(let center, let width, let radius, let fill, let stroke, let label, let fontSize, let opacity):
            pillPath(cr, center: center, width: width, radius: radius)
            setColor(cr, theme, fill, opacity)
            cairo_fill_preserve(cr)
            cairo_set_line_width(cr, 2)
            setColor(cr, theme, stroke, opacity)
            cairo_stroke(cr)
            // The label stays opaque on a ghost's faded fill: its contrast holds (tested).
            drawText(
                cr, theme, label, at: center, size: fontSize, color: .marbleText, anchor: .center, bold: false, alpha: 1,
                centerVertically: true)
        case .bar(let center, let halfHeight, let color, let opacity):
            cairo_set_line_width(cr, 2.5)
            setColor(cr, theme, color, opacity)
            cairo_move_to(cr, center.x, center.y - halfHeight)
            cairo_line_to(cr, center.x, center.y + halfHeight)
            cairo_stroke(cr)
        case .cross(let center, let size, let color, let opacity):
            cairo_set_line_width(cr, 3)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            setColor(cr, theme, color, opacity)
            for (dx, dy) in [(1.0, 1.0), (-1.0, 1.0)] {
                cairo_move_to(cr, center.x - size * dx, center.y - size * dy)
                cairo_line_to(cr, center.x + size * dx, center.y + size * dy)
            }
            cairo_stroke(cr)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT)
        case .rect(let origin, let width, let height, let fill, let stroke, let opacity):
            cairo_rectangle(cr, origin.x, origin.y, width, height)
            setColor(cr, theme, fill, opacity)
            if let stroke {
                cairo_fill_preserve(cr)
                cairo_set_line_width(cr, 1.5)
                setColor(cr, theme, stroke, opacity)
                cairo_stroke(cr)
            } else {
                cairo_fill(cr)
            }
        case .text(let text, let at, let size, let color, let anchor, let bold):
            drawText(cr, theme, text, at: at, size: size, color: color, anchor: anchor, bold: bold, alpha: 1, centerVertically: false)
        }
    }

    private func drawText(
        _ cr: OpaquePointer, _ theme: Theme, _ text: String, at: Point, size: Double, color: ColorRole, anchor: TextAnchor,
        bold: Bool, alpha: Double, centerVertically: Bool
    ) {
        setColor(cr, theme, color, alpha)
        if textEngine == .pango {
            let layout = PangoText.layout(cr, text, family: fontFamily, size: size, bold: bold)
            defer { PangoText.release(layout) }
            let metrics = PangoText.metrics(layout)
            let x = anchor == .center ? at.x - metrics.width / 2 : at.x
            // Pango draws from the layout's top left: centred in a marble, or on the baseline at `at.y`.
            let top = centerVertically ? at.y - metrics.height / 2 : at.y - metrics.baseline
            cairo_move_to(cr, x, top)
            pango_cairo_show_layout(cr, layout)
            return
        }
        cairo_select_font_face(cr, fontFamily, CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(cr, size)
        var extents = cairo_text_extents_t()
        cairo_text_extents(cr, text, &extents)
        var x = at.x
        if anchor == .center { x -= extents.x_advance / 2 }
        var y = at.y
        if centerVertically {
            // Font ascent/descent rather than ink extents, so all labels share a baseline.
            var font = cairo_font_extents_t()
            cairo_font_extents(cr, &font)
            y += (font.ascent - font.descent) / 2
        }
        cairo_move_to(cr, x, y)
        cairo_show_text(cr, text)
    }

    /// The texts of `list` that some character of has no glyph in any installed font (drawn
    /// as empty boxes): what a renderer should warn about. Always empty for the toy engine,
    /// which cannot tell.
    public func textsWithoutGlyphs(in list: DisplayList) -> [String] {
        guard textEngine == .pango else { return [] }
        let measurer = CairoTextMeasurer(fontFamily: fontFamily, textEngine: .pango)
        var missing: [String] = []
        for item in list.items {
            let text: String
            switch item {
            case .marble(_, _, _, _, _, let label, _, _): text = label
            case .text(let label, _, _, _, _, _): text = label
            default: continue
            }
            if !missing.contains(text), measurer.unknownGlyphs(in: text) > 0 { missing.append(text) }
        }
        return missing
    }
}

/// Measures text as ``CairoRenderer`` draws it: the same engine, family and pinned font options.
public final class CairoTextMeasurer: TextMeasurer {
    private let surface: OpaquePointer
    private let cr: OpaquePointer
    private let fontFamily: String
    private let textEngine: TextEngine
    private var cache: [String: Double] = [:]

    /// A measurer for `fontFamily` with `textEngine` (Pango by default, as the renderer).
    public init(fontFamily: String = "DejaVu Sans", textEngine: TextEngine = .pango) {
        self.fontFamily = fontFamily
        self.textEngine = textEngine
        surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1)
        cr = cairo_create(surface)
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_set_font_options(cr, options)
        cairo_font_options_destroy(options)
        cairo_select_font_face(cr, fontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
    }

    deinit {
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
    }

    /// The advance width of `text` at `size` points.
    public func width(of text: String, size: Double) -> Double {
        let key = "\(size)|\(text)"
        if let cached = cache[key] { return cached }
        let width: Double
        if textEngine == .pango {
            let layout = PangoText.layout(cr, text, family: fontFamily, size: size, bold: false)
            width = PangoText.metrics(layout).width
            PangoText.release(layout)
        } else {
            cairo_set_font_size(cr, size)
            var extents = cairo_text_extents_t()
            cairo_text_extents(cr, text, &extents)
            width = extents.x_advance
        }
        cache[key] = width
        return width
    }

    /// How many characters of `text` no installed font has a glyph for (Pango only).
    public func unknownGlyphs(in text: String) -> Int {
        guard textEngine == .pango else { return 0 }
        let layout = PangoText.layout(cr, text, family: fontFamily, size: 12, bold: false)
        defer { PangoText.release(layout) }
        return Int(pango_layout_get_unknown_glyphs_count(layout))
    }
}

/// Collects the bytes Cairo writes.
final class ByteSink {
    var bytes: [UInt8] = []
}

/// Cairo's write callback: appends to the `ByteSink` passed as closure data.
private let writeToSink: cairo_write_func_t = { closure, data, length in
    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
    let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return CAIRO_STATUS_SUCCESS
}
