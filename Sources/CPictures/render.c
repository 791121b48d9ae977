// Draws decoded pixels in cells with libchafa: a mosaic of symbols in the 240-colour palette, or a graphics protocol.
#include "pictures.h"

#include <chafa.h>
#include <stdlib.h>
#include <string.h>

static ChafaSymbolMap *symbol_map(sf_mosaic_symbols symbols) {
    ChafaSymbolMap *map = chafa_symbol_map_new();
    switch (symbols) {
    case SF_MOSAIC_BRAILLE:
        chafa_symbol_map_add_by_tags(map, CHAFA_SYMBOL_TAG_BRAILLE | CHAFA_SYMBOL_TAG_SPACE);
        break;
    case SF_MOSAIC_HALVES:
        chafa_symbol_map_add_by_tags(map, CHAFA_SYMBOL_TAG_HALF | CHAFA_SYMBOL_TAG_SPACE | CHAFA_SYMBOL_TAG_SOLID);
        break;
    case SF_MOSAIC_BLOCKS:
    default:
        // Unicode's Block Elements alone (U+2580 to U+259F), which every font with box drawing has; sextants, which
        // many lack, are left out.
        chafa_symbol_map_add_by_tags(map, CHAFA_SYMBOL_TAG_BLOCK | CHAFA_SYMBOL_TAG_QUAD | CHAFA_SYMBOL_TAG_SPACE);
        chafa_symbol_map_remove_by_tags(map, CHAFA_SYMBOL_TAG_SEXTANT);
        // Shaded blocks read as noise at these sizes.
        chafa_symbol_map_remove_by_tags(map, CHAFA_SYMBOL_TAG_STIPPLE);
        break;
    }
    return map;
}

int sf_mosaic(const uint8_t *rgba, uint32_t width, uint32_t height, int columns, int rows, sf_mosaic_symbols symbols, sf_mosaic_cell *cells) {
    if (columns <= 0 || rows <= 0 || width == 0 || height == 0) return -1;
    ChafaSymbolMap *map = symbol_map(symbols);
    ChafaCanvasConfig *config = chafa_canvas_config_new();
    chafa_canvas_config_set_geometry(config, columns, rows);
    // The 240 colours leave out the 16 a theme redefines, so a picture looks the same in every terminal.
    chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_INDEXED_240);
    chafa_canvas_config_set_pixel_mode(config, CHAFA_PIXEL_MODE_SYMBOLS);
    chafa_canvas_config_set_symbol_map(config, map);
    chafa_canvas_config_set_work_factor(config, 0.5f);
    // Text is drawn from these cells, so the same picture must give the same cells: no randomised dithering.
    chafa_canvas_config_set_dither_mode(config, CHAFA_DITHER_MODE_NONE);
    ChafaCanvas *canvas = chafa_canvas_new(config);
    int result = -1;
    if (canvas) {
        chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, (gint)width, (gint)height, (gint)width * 4);
        for (int y = 0; y < rows; y++) {
            for (int x = 0; x < columns; x++) {
                gint foreground = 0, background = 0;
                chafa_canvas_get_raw_colors_at(canvas, x, y, &foreground, &background);
                sf_mosaic_cell *cell = &cells[y * columns + x];
                cell->symbol = chafa_canvas_get_char_at(canvas, x, y);
                // A transparent pixel has no index (-1): the palette's black stands in for it.
                cell->foreground = (uint8_t)(foreground >= 16 && foreground <= 255 ? foreground : 16);
                cell->background = (uint8_t)(background >= 16 && background <= 255 ? background : 16);
            }
        }
        chafa_canvas_unref(canvas);
        result = 0;
    }
    chafa_canvas_config_unref(config);
    chafa_symbol_map_unref(map);
    return result;
}

int sf_graphics(const uint8_t *rgba, uint32_t width, uint32_t height, int columns, int rows, int cell_width, int cell_height,
                sf_graphics_protocol protocol, uint8_t **out, size_t *out_count) {
    if (columns <= 0 || rows <= 0 || cell_width <= 0 || cell_height <= 0 || width == 0 || height == 0) return -1;
    ChafaCanvasConfig *config = chafa_canvas_config_new();
    chafa_canvas_config_set_geometry(config, columns, rows);
    chafa_canvas_config_set_cell_geometry(config, cell_width, cell_height);
    ChafaPixelMode mode = protocol == SF_GRAPHICS_ITERM2 ? CHAFA_PIXEL_MODE_ITERM2 : CHAFA_PIXEL_MODE_SIXELS;
    chafa_canvas_config_set_pixel_mode(config, mode);
    chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR);
    ChafaCanvas *canvas = chafa_canvas_new(config);
    int result = -1;
    if (canvas) {
        chafa_canvas_draw_all_pixels(canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, (gint)width, (gint)height, (gint)width * 4);
        ChafaTermDb *db = chafa_term_db_get_default();
        ChafaTermInfo *info = chafa_term_db_get_fallback_info(db);
        GString *printed = chafa_canvas_print(canvas, info);
        if (printed) {
            *out = malloc(printed->len ? printed->len : 1);
            if (*out) {
                memcpy(*out, printed->str, printed->len);
                *out_count = printed->len;
                result = 0;
            }
            g_string_free(printed, TRUE);
        }
        chafa_term_info_unref(info);
        chafa_canvas_unref(canvas);
    }
    chafa_canvas_config_unref(config);
    return result;
}
