// libFuzzer's entry for the picture decoder (scripts/fuzz-pictures): any bytes, the limits an upload gets.
#include "pictures.h"
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sf_picture_limits limits = {.max_bytes = 8u << 20, .max_side = 8192, .max_pixels = 24000000, .max_seconds = 3, .fit_side = 480};
    sf_picture picture;
    if (sf_picture_decode(data, size, &limits, &picture) == SF_PICTURE_OK) sf_picture_free(&picture);
    return 0;
}
