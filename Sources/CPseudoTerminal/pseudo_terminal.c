// posix_openpt and friends are declared only with _XOPEN_SOURCE, which Swift's Glibc module lacks.
#define _XOPEN_SOURCE 700
#define _GNU_SOURCE
#include "pseudo_terminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int sf_open_pseudo_terminal(char *path, size_t path_length) {
    int controller = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (controller < 0) return -1;
    if (grantpt(controller) != 0 || unlockpt(controller) != 0) goto fail;
    int named = ptsname_r(controller, path, path_length);
    if (named != 0) { errno = named; goto fail; }
    return controller;
fail: {
        int saved = errno;
        close(controller);
        errno = saved;
        return -1;
    }
}
