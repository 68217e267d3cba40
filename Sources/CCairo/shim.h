#ifndef MARBLES_CCAIRO_SHIM_H
#define MARBLES_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>

/*
 * The part of Pango's stable C API the renderer uses, declared here rather than through
 * <pango/pangocairo.h>: its pkg-config flags carry -pthread, which SwiftPM refuses with a
 * warning on every build. The library itself comes from libpango1.0-dev (linked below).
 */
typedef struct _PangoLayout PangoLayout;
typedef struct _PangoContext PangoContext;
typedef struct _PangoFontDescription PangoFontDescription;
typedef struct {
    int x, y, width, height;
} PangoRectangle;
enum { MARBLES_PANGO_SCALE = 1024, MARBLES_PANGO_WEIGHT_NORMAL = 400, MARBLES_PANGO_WEIGHT_BOLD = 700 };

PangoLayout *pango_cairo_create_layout(cairo_t *cr);
void pango_cairo_show_layout(cairo_t *cr, PangoLayout *layout);
void pango_cairo_context_set_font_options(PangoContext *context, const cairo_font_options_t *options);
PangoContext *pango_layout_get_context(PangoLayout *layout);
void pango_context_set_round_glyph_positions(PangoContext *context, int round_positions);
void pango_layout_context_changed(PangoLayout *layout);
PangoFontDescription *pango_font_description_new(void);
void pango_font_description_set_family(PangoFontDescription *desc, const char *family);
void pango_font_description_set_weight(PangoFontDescription *desc, int weight);
void pango_font_description_set_absolute_size(PangoFontDescription *desc, double size);
void pango_font_description_free(PangoFontDescription *desc);
void pango_layout_set_font_description(PangoLayout *layout, const PangoFontDescription *desc);
void pango_layout_set_text(PangoLayout *layout, const char *text, int length);
void pango_layout_get_extents(PangoLayout *layout, PangoRectangle *ink_rect, PangoRectangle *logical_rect);
int pango_layout_get_baseline(PangoLayout *layout);
int pango_layout_get_unknown_glyphs_count(PangoLayout *layout);
void g_object_unref(void *object);
#endif
