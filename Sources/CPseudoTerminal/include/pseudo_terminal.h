#ifndef STOREFRONT_PSEUDO_TERMINAL_H
#define STOREFRONT_PSEUDO_TERMINAL_H

#include <stddef.h>

/// Opens a new pty pair's controlling side (O_RDWR | O_NOCTTY | O_CLOEXEC), unlocks it and writes
/// the path of its terminal side into `path`. Returns the descriptor, or -1 with errno set.
int sf_open_pseudo_terminal(char *path, size_t path_length);

/// Catches SIGWINCH, SIGHUP, SIGTERM, SIGINT and SIGQUIT (ignores SIGPIPE) and returns a descriptor that reads their
/// numbers, or -1 with errno: for a joiner, which waits on its socket and its signals in one poll. Once per process.
int sf_joiner_signals(void);

/// Puts those signals' default actions back and closes the descriptor (a program exec'd next starts as usual).
void sf_joiner_signals_end(int descriptor);

/// The number of the next signal waiting on a descriptor from `sf_joiner_signals`, or 0 if none is.
int sf_next_signal(int descriptor);

#endif
