// Decodes PNG with libpng and JPEG with libjpeg-turbo, within limits on bytes, pixels and time.
// Both libraries report errors by longjmp, which Swift cannot cross: this file is where they are caught.
#include "pictures.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void say(sf_picture *out, const char *text) {
    snprintf(out->message, sizeof out->message, "%s", text);
}

/* Scales RGBA down by averaging boxes, so a picture kept for terminals holds no more than it shows. */
static uint8_t *box_scale(const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t new_width, uint32_t new_height) {
    uint8_t *scaled = malloc((size_t)new_width * new_height * 4);
    if (!scaled) return NULL;
    for (uint32_t y = 0; y < new_height; y++) {
        uint32_t y0 = (uint32_t)((uint64_t)y * height / new_height);
        uint32_t y1 = (uint32_t)((uint64_t)(y + 1) * height / new_height);
        if (y1 <= y0) y1 = y0 + 1;
        for (uint32_t x = 0; x < new_width; x++) {
            uint32_t x0 = (uint32_t)((uint64_t)x * width / new_width);
            uint32_t x1 = (uint32_t)((uint64_t)(x + 1) * width / new_width);
            if (x1 <= x0) x1 = x0 + 1;
            uint64_t sum[4] = {0, 0, 0, 0};
            for (uint32_t sy = y0; sy < y1; sy++) {
                const uint8_t *row = rgba + ((size_t)sy * width + x0) * 4;
                for (uint32_t sx = x0; sx < x1; sx++, row += 4) {
                    sum[0] += row[0]; sum[1] += row[1]; sum[2] += row[2]; sum[3] += row[3];
                }
            }
            uint64_t n = (uint64_t)(y1 - y0) * (x1 - x0);
            uint8_t *pixel = scaled + ((size_t)y * new_width + x) * 4;
            for (int c = 0; c < 4; c++) pixel[c] = (uint8_t)(sum[c] / n);
        }
    }
    return scaled;
}

/* Scales `out` within fit_side on its longer side, keeping its shape. */
static sf_picture_status fit(sf_picture *out, uint32_t fit_side) {
    if (fit_side == 0 || (out->width <= fit_side && out->height <= fit_side)) return SF_PICTURE_OK;
    uint32_t longer = out->width > out->height ? out->width : out->height;
    uint32_t new_width = (uint32_t)((uint64_t)out->width * fit_side / longer);
    uint32_t new_height = (uint32_t)((uint64_t)out->height * fit_side / longer);
    if (new_width == 0) new_width = 1;
    if (new_height == 0) new_height = 1;
    uint8_t *scaled = box_scale(out->rgba, out->width, out->height, new_width, new_height);
    if (!scaled) return SF_PICTURE_NO_MEMORY;
    free(out->rgba);
    out->rgba = scaled;
    out->width = new_width;
    out->height = new_height;
    return SF_PICTURE_OK;
}

static sf_picture_status check_size(uint32_t width, uint32_t height, const sf_picture_limits *limits, sf_picture *out) {
    out->source_width = width;
    out->source_height = height;
    if (width == 0 || height == 0) {
        say(out, "the picture has no pixels");
        return SF_PICTURE_MALFORMED;
    }
    if (width > limits->max_side || height > limits->max_side || (uint64_t)width * height > limits->max_pixels) {
        snprintf(out->message, sizeof out->message, "%ux%u pixels is more than the %u-pixel side and %llu pixels allowed",
                 width, height, limits->max_side, (unsigned long long)limits->max_pixels);
        return SF_PICTURE_TOO_MANY_PIXELS;
    }
    return SF_PICTURE_OK;
}

// MARK: - PNG

typedef struct {
    jmp_buf jump;
    const uint8_t *bytes;
    size_t count, offset;
    double deadline;
    sf_picture_status status;
    sf_picture *out;
} png_reading;

static void png_fail(png_structp png, png_const_charp text) {
    png_reading *reading = png_get_error_ptr(png);
    if (reading->status == SF_PICTURE_OK) reading->status = strstr(text, "exceeds user limit") ? SF_PICTURE_TOO_MANY_PIXELS : SF_PICTURE_MALFORMED;
    if (reading->out->message[0] == 0) say(reading->out, text);
    longjmp(reading->jump, 1);
}

static void png_warn(png_structp png, png_const_charp text) { (void)png; (void)text; }

static void png_read_bytes(png_structp png, png_bytep data, size_t length) {
    png_reading *reading = png_get_io_ptr(png);
    if (length > reading->count - reading->offset) {
        reading->status = SF_PICTURE_TRUNCATED;
        say(reading->out, "the PNG ends before its last pixels");
        png_error(png, "truncated");
    }
    memcpy(data, reading->bytes + reading->offset, length);
    reading->offset += length;
}

static void png_row_done(png_structp png, png_uint_32 row, int pass) {
    (void)row; (void)pass;
    png_reading *reading = png_get_io_ptr(png);
    if (now_seconds() > reading->deadline) {
        reading->status = SF_PICTURE_TOO_SLOW;
        say(reading->out, "decoding the PNG took longer than allowed");
        png_error(png, "too slow");
    }
}

static sf_picture_status decode_png(const uint8_t *bytes, size_t count, const sf_picture_limits *limits, sf_picture *out) {
    png_reading reading = {.bytes = bytes, .count = count, .deadline = now_seconds() + limits->max_seconds, .out = out};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &reading, png_fail, png_warn);
    if (!png) return SF_PICTURE_NO_MEMORY;
    png_infop info = png_create_info_struct(png);
    // Volatile: changed after setjmp and read after the jump back.
    uint8_t *volatile rgba = NULL;
    png_bytep *volatile rows = NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return SF_PICTURE_NO_MEMORY;
    }
    if (setjmp(reading.jump)) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rgba);
        free(rows);
        return reading.status;
    }
    png_set_read_fn(png, &reading, png_read_bytes);
    png_set_read_status_fn(png, png_row_done);
    // libpng's own limit on a side (a million pixels) is left: check_size says more, once the header is read.
    // Ancillary chunks (text, ICC profiles) inflate within these, so a small file cannot ask for gigabytes.
    png_set_chunk_cache_max(png, 128);
    png_set_chunk_malloc_max(png, 4 * 1024 * 1024);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    sf_picture_status status = check_size(width, height, limits, out);
    if (status != SF_PICTURE_OK) {
        reading.status = status;
        png_error(png, out->message);
    }
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) png_error(png, "unexpected row layout");
    rgba = malloc((size_t)width * height * 4);
    rows = malloc(sizeof(png_bytep) * height);
    if (!rgba || !rows) {
        reading.status = SF_PICTURE_NO_MEMORY;
        png_error(png, "out of memory");
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = rgba + (size_t)y * width * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    out->rgba = rgba;
    out->width = width;
    out->height = height;
    return fit(out, limits->fit_side);
}

// MARK: - JPEG

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    sf_picture_status status;
    sf_picture *out;
    double deadline;
} jpeg_failure;

static void jpeg_fail(j_common_ptr jpeg) {
    jpeg_failure *failure = (jpeg_failure *)jpeg->err;
    if (failure->status == SF_PICTURE_OK) failure->status = SF_PICTURE_MALFORMED;
    if (failure->out->message[0] == 0) jpeg->err->format_message(jpeg, failure->out->message);
    longjmp(failure->jump, 1);
}

/* A warning is damage (a truncated file, corrupt entropy data): a shop's picture is refused rather than shown grey. */
static void jpeg_message(j_common_ptr jpeg, int level) {
    if (level >= 0) return;
    jpeg_failure *failure = (jpeg_failure *)jpeg->err;
    failure->status = jpeg->err->msg_code == JWRN_JPEG_EOF ? SF_PICTURE_TRUNCATED : SF_PICTURE_MALFORMED;
    jpeg->err->format_message(jpeg, failure->out->message);
    longjmp(failure->jump, 1);
}

static void jpeg_progress(j_common_ptr jpeg) {
    jpeg_failure *failure = (jpeg_failure *)jpeg->err;
    j_decompress_ptr decompress = (j_decompress_ptr)jpeg;
    // A progressive file of thousands of tiny scans costs a full pass each: real encoders write about ten.
    if (decompress->input_scan_number > 100) {
        failure->status = SF_PICTURE_MALFORMED;
        say(failure->out, "the JPEG has more than 100 scans");
        longjmp(failure->jump, 1);
    }
    if (now_seconds() > failure->deadline) {
        failure->status = SF_PICTURE_TOO_SLOW;
        say(failure->out, "decoding the JPEG took longer than allowed");
        longjmp(failure->jump, 1);
    }
}

static sf_picture_status decode_jpeg(const uint8_t *bytes, size_t count, const sf_picture_limits *limits, sf_picture *out) {
    struct jpeg_decompress_struct jpeg;
    jpeg_failure failure = {.out = out, .deadline = now_seconds() + limits->max_seconds};
    struct jpeg_progress_mgr progress = {.progress_monitor = jpeg_progress};
    jpeg.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_fail;
    failure.manager.emit_message = jpeg_message;
    uint8_t *volatile rgba = NULL;
    if (setjmp(failure.jump)) {
        jpeg_destroy_decompress(&jpeg);
        free(rgba);
        return failure.status;
    }
    jpeg_create_decompress(&jpeg);
    jpeg.progress = &progress;
    jpeg_mem_src(&jpeg, bytes, (unsigned long)count);
    jpeg_read_header(&jpeg, TRUE);
    sf_picture_status status = check_size(jpeg.image_width, jpeg.image_height, limits, out);
    if (status != SF_PICTURE_OK) {
        failure.status = status;
        longjmp(failure.jump, 1);
    }
    if (jpeg.jpeg_color_space == JCS_CMYK || jpeg.jpeg_color_space == JCS_YCCK) {
        say(out, "CMYK JPEGs are for print; save it as RGB");
        failure.status = SF_PICTURE_MALFORMED;
        longjmp(failure.jump, 1);
    }
    jpeg.out_color_space = JCS_EXT_RGBA;
    // The largest of 1/1, 1/2, 1/4 and 1/8 that still covers fit_side: a photo shown in cells never needs all its pixels.
    jpeg.scale_num = 1;
    jpeg.scale_denom = 1;
    if (limits->fit_side > 0) {
        uint32_t longer = jpeg.image_width > jpeg.image_height ? jpeg.image_width : jpeg.image_height;
        while (jpeg.scale_denom < 8 && longer / (jpeg.scale_denom * 2) >= limits->fit_side) jpeg.scale_denom *= 2;
    }
    jpeg_start_decompress(&jpeg);
    uint32_t width = jpeg.output_width, height = jpeg.output_height;
    rgba = malloc((size_t)width * height * 4);
    if (!rgba) {
        failure.status = SF_PICTURE_NO_MEMORY;
        say(out, "out of memory");
        longjmp(failure.jump, 1);
    }
    while (jpeg.output_scanline < height) {
        JSAMPROW row = rgba + (size_t)jpeg.output_scanline * width * 4;
        jpeg_read_scanlines(&jpeg, &row, 1);
    }
    jpeg_finish_decompress(&jpeg);
    jpeg_destroy_decompress(&jpeg);
    out->rgba = rgba;
    out->width = width;
    out->height = height;
    return fit(out, limits->fit_side);
}

// MARK: - Entry

sf_picture_status sf_picture_decode(const uint8_t *bytes, size_t count, const sf_picture_limits *limits, sf_picture *out) {
    memset(out, 0, sizeof *out);
    if (count > limits->max_bytes) {
        snprintf(out->message, sizeof out->message, "%zu bytes is more than the %zu allowed", count, limits->max_bytes);
        return SF_PICTURE_TOO_MANY_BYTES;
    }
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (count >= 8 && memcmp(bytes, png_signature, 8) == 0) {
        out->format = SF_PICTURE_FORMAT_PNG;
        return decode_png(bytes, count, limits, out);
    }
    if (count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF) {
        out->format = SF_PICTURE_FORMAT_JPEG;
        return decode_jpeg(bytes, count, limits, out);
    }
    say(out, "not a PNG or JPEG file");
    return SF_PICTURE_UNKNOWN_FORMAT;
}

void sf_picture_free(sf_picture *picture) {
    free(picture->rgba);
    picture->rgba = NULL;
}

int sf_deflate(const uint8_t *bytes, size_t count, int level, uint8_t **out, size_t *out_count) {
    uLongf bound = compressBound((uLong)count);
    uint8_t *buffer = malloc(bound);
    if (!buffer) return -1;
    if (compress2(buffer, &bound, bytes, (uLong)count, level) != Z_OK) {
        free(buffer);
        return -1;
    }
    *out = buffer;
    *out_count = bound;
    return 0;
}
