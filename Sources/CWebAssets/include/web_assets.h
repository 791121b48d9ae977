#ifndef STOREFRONT_WEB_ASSETS_H
#define STOREFRONT_WEB_ASSETS_H
#include <stddef.h>

/// One file of the browser front, compiled into the binary from assets/web/.
typedef struct {
    const char *name;
    const unsigned char *bytes;
    size_t size;
} sf_web_asset;

/// Every asset; `count` receives how many.
const sf_web_asset *sf_web_assets(size_t *count);

/// `bytes` in gzip (zlib at its best compression) into a malloc'd buffer (free with free); -1 when zlib fails.
int sf_gzip(const unsigned char *bytes, size_t count, unsigned char **out, size_t *out_count);

#endif
