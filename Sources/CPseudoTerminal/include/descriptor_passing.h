#ifndef STOREFRONT_DESCRIPTOR_PASSING_H
#define STOREFRONT_DESCRIPTOR_PASSING_H

#include <stddef.h>
#include <sys/types.h>

/// Sends `length` bytes as one message, with `descriptor` (SCM_RIGHTS) unless it is -1. Returns 0, or -1 with errno.
int sf_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor);

/// Receives one message and at most one descriptor (-1 if none came); `truncated` says the message did not fit.
/// Returns the length, 0 at end of file, -1 with errno.
ssize_t sf_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor, int *truncated);

/// The user id of the process at the other end of a local socket, as the kernel vouches for it (SO_PEERCRED).
/// Returns 0, or -1 with errno.
int sf_peer_user(int socket, unsigned int *user);

/// Accepts a connection, non-blocking and closed on exec from the start. Returns it, or -1 with errno.
int sf_accept_nonblocking(int socket);

#endif
