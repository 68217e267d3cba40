internal import CCairo

/// How labels are shaped and drawn.
public enum TextEngine: String, CaseIterable, Sendable {
    /// Pango with fontconfig fallback: Latin, CJK and emoji (in colour where the font has it)
    /// each come from a font that has their glyphs. The default.
    case pango
    /// Cairo's toy text API: one font, no fallback (characters it lacks draw as empty boxes).
    /// Kept for comparison and for the benchmark.
    case toy
}

/// Text through Pango on a Cairo context: one layout per label, with pinned font options so the
/// same text gives the same bytes on every run.
enum PangoText {
    /// The families tried after the chosen one, in order, before fontconfig's own fallback:
    /// the CJK and emoji fonts the Makefile installs.
    static let fallbackFamilies = ["WenQuanYi Micro Hei"]

    /// A layout of `text` at `size` (user units, as Cairo's toy `set_font_size`); the caller
    /// releases it with `g_object_unref`.
    static func layout(_ cr: OpaquePointer, _ text: String, family: String, size: Double, bold: Bool) -> OpaquePointer {
        let layout = pango_cairo_create_layout(cr)!
        let context = pango_layout_get_context(layout)
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
        // Unrounded positions: the widths layout measured are the widths drawn, at any scale.
        pango_context_set_round_glyph_positions(context, 0)
        pango_layout_context_changed(layout)
        let description = pango_font_description_new()
        pango_font_description_set_family(description, ([family] + fallbackFamilies).joined(separator: ","))
        pango_font_description_set_weight(description, bold ? Int32(MARBLES_PANGO_WEIGHT_BOLD) : Int32(MARBLES_PANGO_WEIGHT_NORMAL))
        pango_font_description_set_absolute_size(description, size * Double(MARBLES_PANGO_SCALE))
        pango_layout_set_font_description(layout, description)
        pango_font_description_free(description)
        pango_layout_set_text(layout, text, -1)
        return layout
    }

    /// The logical width and height of a layout, and its baseline from the top.
    static func metrics(_ layout: OpaquePointer) -> (width: Double, height: Double, baseline: Double) {
        var logical = PangoRectangle()
        pango_layout_get_extents(layout, nil, &logical)
        let scale = Double(MARBLES_PANGO_SCALE)
        return (Double(logical.width) / scale, Double(logical.height) / scale, Double(pango_layout_get_baseline(layout)) / scale)
    }

    static func release(_ layout: OpaquePointer) {
        g_object_unref(UnsafeMutableRawPointer(layout))
    }
}
