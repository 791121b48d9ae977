// The browser front's files, embedded at build time with C23 #embed: one binary carries them, and the
// compiler reads them in well under a second where a Swift array literal of the same bytes takes minutes.
#pragma clang diagnostic ignored "-Wc23-extensions"
#include "web_assets.h"
#include <stdlib.h>
#include <zlib.h>

static const unsigned char xterm_js[] = {
#embed "../../assets/web/xterm.js"
};
static const unsigned char xterm_css[] = {
#embed "../../assets/web/xterm.css"
};
static const unsigned char xterm_addon_fit_js[] = {
#embed "../../assets/web/xterm-addon-fit.js"
};
static const unsigned char connect_js[] = {
#embed "../../assets/web/connect.js"
};
static const unsigned char preview_js[] = {
#embed "../../assets/web/preview.js"
};
static const unsigned char after_paint_js[] = {
#embed "../../assets/web/after-paint.js"
};
static const unsigned char storefront_js[] = {
#embed "../../assets/web/storefront.js"
};
static const unsigned char storefront_css[] = {
#embed "../../assets/web/storefront.css"
};
static const unsigned char licence[] = {
#embed "../../assets/web/LICENSE-xterm.txt"
};

static const sf_web_asset assets[] = {
    {"xterm.js", xterm_js, sizeof(xterm_js)},
    {"xterm.css", xterm_css, sizeof(xterm_css)},
    {"xterm-addon-fit.js", xterm_addon_fit_js, sizeof(xterm_addon_fit_js)},
    {"connect.js", connect_js, sizeof(connect_js)},
    {"preview.js", preview_js, sizeof(preview_js)},
    {"after-paint.js", after_paint_js, sizeof(after_paint_js)},
    {"storefront.js", storefront_js, sizeof(storefront_js)},
    {"storefront.css", storefront_css, sizeof(storefront_css)},
    {"LICENSE-xterm.txt", licence, sizeof(licence)},
};

const sf_web_asset *sf_web_assets(size_t *count) {
    *count = sizeof(assets) / sizeof(assets[0]);
    return assets;
}

int sf_gzip(const unsigned char *bytes, size_t count, unsigned char **out, size_t *out_count) {
    z_stream stream = {0};
    // 31: a window of 2^15 with gzip's header and trailer, what Content-Encoding: gzip names.
    if (deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 31, 9, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    uLong bound = deflateBound(&stream, (uLong)count);
    unsigned char *buffer = malloc(bound);
    if (!buffer) {
        deflateEnd(&stream);
        return -1;
    }
    stream.next_in = (Bytef *)bytes;
    stream.avail_in = (uInt)count;
    stream.next_out = buffer;
    stream.avail_out = (uInt)bound;
    int result = deflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    deflateEnd(&stream);
    if (result != Z_STREAM_END) {
        free(buffer);
        return -1;
    }
    *out = buffer;
    *out_count = written;
    return 0;
}
