#ifndef STOREFRONT_PICTURES_H
#define STOREFRONT_PICTURES_H

#include <stddef.h>
#include <stdint.h>

/* What a decode may spend: checked from the header before any pixel is allocated, and the clock while it runs. */
typedef struct {
    size_t max_bytes;
    uint32_t max_side;
    uint64_t max_pixels;
    double max_seconds;
    /* Pixels wider or taller than this are scaled down (a JPEG while it decodes, 1/2 to 1/8); 0 keeps every pixel. */
    uint32_t fit_side;
} sf_picture_limits;

typedef enum {
    SF_PICTURE_OK = 0,
    SF_PICTURE_UNKNOWN_FORMAT = 1,
    SF_PICTURE_TOO_MANY_BYTES = 2,
    SF_PICTURE_TOO_MANY_PIXELS = 3,
    SF_PICTURE_MALFORMED = 4,
    SF_PICTURE_TRUNCATED = 5,
    SF_PICTURE_TOO_SLOW = 6,
    SF_PICTURE_NO_MEMORY = 7,
} sf_picture_status;

typedef enum {
    SF_PICTURE_FORMAT_UNKNOWN = 0,
    SF_PICTURE_FORMAT_PNG = 1,
    SF_PICTURE_FORMAT_JPEG = 2,
} sf_picture_format;

/* A decoded picture: 8-bit RGBA rows with no padding, or on failure the library's own words in `message`. */
typedef struct {
    sf_picture_format format;
    /* The size the file declares, before any scaling to fit_side. */
    uint32_t source_width, source_height;
    uint32_t width, height;
    uint8_t *rgba;
    char message[200];
} sf_picture;

/* Decodes a PNG or JPEG within `limits`; on success `out->rgba` is the caller's to free with sf_picture_free. */
sf_picture_status sf_picture_decode(const uint8_t *bytes, size_t count, const sf_picture_limits *limits, sf_picture *out);
void sf_picture_free(sf_picture *picture);

/* The 240-colour palette's indices (16 to 255) and one symbol per cell, as chafa draws a picture in `columns` x `rows`. */
typedef struct {
    uint32_t symbol;
    uint8_t foreground;
    uint8_t background;
} sf_mosaic_cell;

typedef enum {
    /* Unicode's Block Elements: halves, quadrants and eighths, in every font with box drawing. */
    SF_MOSAIC_BLOCKS = 0,
    /* Braille dots: fine detail with one colour per cell. */
    SF_MOSAIC_BRAILLE = 1,
    /* Half blocks alone, which every font with box drawing has. */
    SF_MOSAIC_HALVES = 2,
} sf_mosaic_symbols;

/* Fills `cells` (columns x rows, row after row) from RGBA pixels; returns 0, or -1 when chafa cannot. */
int sf_mosaic(const uint8_t *rgba, uint32_t width, uint32_t height, int columns, int rows, sf_mosaic_symbols symbols, sf_mosaic_cell *cells);

/* The protocols libchafa draws at the cursor; kitty's protocol, sent once by id, is written by the shop's encoder. */
typedef enum {
    SF_GRAPHICS_SIXEL = 0,
    SF_GRAPHICS_ITERM2 = 2,
} sf_graphics_protocol;

/* The bytes that draw the picture in `columns` x `rows` cells of `cell_width` x `cell_height` pixels at the cursor, in
   `protocol`; malloc'd into *out (free with free), or -1. */
int sf_graphics(const uint8_t *rgba, uint32_t width, uint32_t height, int columns, int rows, int cell_width, int cell_height,
                sf_graphics_protocol protocol, uint8_t **out, size_t *out_count);

/* zlib's compress2 at `level` into a malloc'd buffer (free with free); -1 when it fails. */
int sf_deflate(const uint8_t *bytes, size_t count, int level, uint8_t **out, size_t *out_count);

#endif
