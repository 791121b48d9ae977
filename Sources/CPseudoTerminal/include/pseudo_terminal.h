#ifndef STOREFRONT_PSEUDO_TERMINAL_H
#define STOREFRONT_PSEUDO_TERMINAL_H

#include <stddef.h>

/// Opens a new pty pair's controlling side (O_RDWR | O_NOCTTY | O_CLOEXEC), unlocks it and writes
/// the path of its terminal side into `path`. Returns the descriptor, or -1 with errno set.
int sf_open_pseudo_terminal(char *path, size_t path_length);

#endif
