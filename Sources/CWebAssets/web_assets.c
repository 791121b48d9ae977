// The browser front's files, embedded at build time with C23 #embed: one binary carries them, and the
// compiler reads them in well under a second where a Swift array literal of the same bytes takes minutes.
#pragma clang diagnostic ignored "-Wc23-extensions"
#include "web_assets.h"

static const unsigned char xterm_js[] = {
#embed "../../assets/web/xterm.js"
};
static const unsigned char xterm_css[] = {
#embed "../../assets/web/xterm.css"
};
static const unsigned char xterm_addon_fit_js[] = {
#embed "../../assets/web/xterm-addon-fit.js"
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
    {"storefront.js", storefront_js, sizeof(storefront_js)},
    {"storefront.css", storefront_css, sizeof(storefront_css)},
    {"LICENSE-xterm.txt", licence, sizeof(licence)},
};

const sf_web_asset *sf_web_assets(size_t *count) {
    *count = sizeof(assets) / sizeof(assets[0]);
    return assets;
}
